"""Times and predicts the kernels of a public loop suite (bench/suites/*.sh)
and prints the accuracy figures issue 45 asks for. The suites' code stays
in their own checkouts; nothing of it is copied here."""
import collections
import glob, json, os, re, statistics, subprocess, sys, tempfile


def kendall_tau(xs, ys):
    n, s = len(xs), 0
    for i in range(n):
        for j in range(i + 1, n):
            a, b = xs[i] - xs[j], ys[i] - ys[j]
            s += (a > 0) - (a < 0) if b > 0 else ((a < 0) - (a > 0) if b < 0 else 0)
    return s / (n * (n - 1) / 2) if n > 1 else float("nan")


def polybench_kernels(pb, ds):
    """(name, source, -D sizes, compile flags) per kernel of the suite."""
    for line in open(os.path.join(pb, "utilities/benchmark_list")):
        f = line.strip()
        if not f:
            continue
        src = os.path.join(pb, f)
        header = os.path.splitext(src)[0] + ".h"
        sizes, block = [], None
        for hl in open(header):
            m = re.match(r"\s*#\s*ifdef\s+(\w+)_DATASET", hl)
            if m:
                block = m.group(1)
                continue
            m = re.match(r"\s*#\s*define\s+(\w+)\s+([0-9]+)\s*$", hl)
            if m and block == ds:
                sizes.append(f"{m.group(1).lower()}={m.group(2)}")
        # The timed build's flags, analysed as timed: the timer's code changes
        # the register choices of main, into which clang inlines the kernel
        # (syr2k: a chain through a zeroed register in one build, not the other).
        flush = [] if os.environ.get("FLUSH") == "1" else ["-DPOLYBENCH_NO_FLUSH_CACHE"]
        flags = ["-O3", "-march=native", f"-I{pb}/utilities", f"-I{os.path.dirname(src)}",
                 f"-D{ds}_DATASET", "-DPOLYBENCH_TIME", *flush]
        yield os.path.splitext(os.path.basename(f))[0], src, sizes, flags


CLOCKS = []  # GHz, before and after each timed process of this run
_CLOCK_EXE = []


def clock_now():
    """Runs bench/suites/clock.c (a 0.1 s dependent add chain) and keeps its
    GHz in CLOCKS: the timed processes are bracketed by it, and the
    predictions use the median (predict_all), the clock the timings saw."""
    if not _CLOCK_EXE:
        here = os.path.dirname(os.path.abspath(__file__))
        tmp = tempfile.TemporaryDirectory()  # removed with the process
        exe = os.path.join(tmp.name, "clock")
        if subprocess.run(["clang-19", "-O2", os.path.join(here, "clock.c"), "-o", exe]).returncode:
            raise SystemExit("bench/suites/clock.c does not build")
        _CLOCK_EXE.extend([exe, tmp])
    CLOCKS.append(float(subprocess.run([_CLOCK_EXE[0]], capture_output=True, text=True).stdout))


def timed(cmd, **kw):
    """subprocess.run(CMD) bracketed by the clock."""
    clock_now()
    r = subprocess.run(cmd, **kw)
    clock_now()
    return r


def time_polybench(pb, src, flags, runs, tmp):
    exe = os.path.join(tmp, "k")
    # PolyBench flushes the caches before the timed call unless told not
    # to; perfmodel's headline assumes the data in the level its working set
    # fits (warm), so the default here keeps them (FLUSH=1: PolyBench's way;
    # both in FLAGS, polybench_kernels).
    r = subprocess.run(["clang-19", *flags, os.path.join(pb, "utilities/polybench.c"),
                        src, "-o", exe, "-lm"], capture_output=True, text=True)
    if r.returncode:
        return None, "does not build: " + r.stderr.strip().splitlines()[-1][:80]
    times = []
    for _ in range(runs):
        r = timed([exe], capture_output=True, text=True, timeout=600)
        try:
            times.append(float(r.stdout.strip().split()[-1]))
        except (ValueError, IndexError):
            return None, "no time printed"
    return statistics.median(times), None


def kept_times(times, measure=None):
    """TIMES=FILE (JSON) keeps a run's timings, so that a change of the model
    is compared on the same measurements: a kernel timed there is not timed
    again (TSVC_2 is not run at all when the file exists), a new one is
    added. PolyBench passes one kernel at a time with MEASURE."""
    path = os.environ.get("TIMES")
    kept = json.load(open(path)) if path and os.path.exists(path) else {}
    out = {}
    # The clock the kept timings ran at (the median of CLOCKS when timed).
    if CLOCKS:
        kept["_clock_ghz"] = round(statistics.median(CLOCKS), 3)
    elif "_clock_ghz" in kept:
        CLOCKS.append(kept["_clock_ghz"])
    for name, t in times.items():
        if name.startswith("_"):
            continue
        if name in kept:
            out[name] = tuple(kept[name]) if isinstance(kept[name], list) else kept[name]
        else:
            out[name] = measure() if measure else t
            kept[name] = out[name]
    if path:
        json.dump(kept, open(path, "w"), indent=0)
    return out


def tsvc_times(src_dir, iterations, runs, tmp):
    """TSVC_2's own timings (seconds per function, median of RUNS runs) of a
    copy of its src/ with `iterations` set (100000 upstream: minutes a run),
    and that copy's tsvc.c path; or an error."""
    work = os.path.join(tmp, "tsvc")
    subprocess.run(["cp", "-r", src_dir, work], check=True)
    common = os.path.join(work, "common.h")
    text = open(common).read()
    text = re.sub(r"#define iterations \d+", f"#define iterations {iterations}", text)
    open(common, "w").write(text)
    flags = ["-O3", "-march=native", f"-I{work}"]
    objs = []
    for f in ("dummy.c", "common.c"):  # separate units, as TSVC's Makefile builds them
        o = os.path.join(work, f + ".o")
        r = subprocess.run(["clang-19", *flags, "-c", os.path.join(work, f), "-o", o],
                           capture_output=True, text=True)
        if r.returncode:
            return None, None, f"{f} does not build"
        objs.append(o)
    exe = os.path.join(work, "tsvc")
    r = subprocess.run(["clang-19", *flags, os.path.join(work, "tsvc.c"), *objs, "-o", exe, "-lm"],
                       capture_output=True, text=True)
    if r.returncode:
        return None, None, "tsvc.c does not build"
    times = collections.defaultdict(list)
    path = os.environ.get("TIMES")
    if path and os.path.exists(path):
        runs = 0  # kept_times has them
    for _ in range(runs):
        out = timed([exe], capture_output=True, text=True, timeout=3600).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) >= 2 and re.match(r"^[sv]", parts[0]):
                try:
                    times[parts[0]].append(float(parts[1]))
                except ValueError:
                    pass
    return {k: statistics.median(v) for k, v in times.items()}, os.path.join(work, "tsvc.c"), None


def classify(loop):
    """A loop's headline seconds per call, or None and why."""
    p = loop.get("prediction") or {}
    if not loop.get("modelled"):
        return None, "declined: " + (loop.get("reason") or "?")[:70]
    if p.get("seconds") is None:
        return None, "no seconds: " + (p.get("reason") or "iterations unknown")[:60]
    return p["seconds"], None


def model_seconds(loop, model):
    """Seconds per call by MODEL: the headline's seconds scaled by that
    model's cycles per iteration at its own data level; None where it has
    none."""
    p = loop.get("prediction") or {}
    if not p.get("cy_per_it"):
        return None
    for m in loop.get("predictions") or []:
        if m.get("model") == model and m.get("ok"):
            for lv in m.get("levels") or []:
                if lv.get("level") == m.get("data_level") and lv.get("cy_per_it"):
                    return p["seconds"] * lv["cy_per_it"] / p["cy_per_it"]
    return None


class ByFunction(collections.defaultdict):
    """Loops by function, and the report's size parameters."""
    parameters = ()


def predict_all(perfmodel, src, flags, sizes=()):
    """perfmodel's loops of SRC by function: [(seconds or None, why, loop)]."""
    # At the clock the timings ran at (CLOCKS, also kept with TIMES), unless
    # ANALYZE_ARGS sets one (e.g. "--host-clock-ghz 4.2").
    extra = os.environ.get("ANALYZE_ARGS", "").split()
    if CLOCKS and "--host-clock-ghz" not in extra:
        extra += ["--host-clock-ghz", f"{statistics.median(CLOCKS):.3f}"]
    args = [perfmodel, "analyze", src, "--format", "json", *extra]
    for d in sizes:
        args += ["-D", d]
    r = subprocess.run(args + ["--"] + flags, capture_output=True, text=True)
    by = ByFunction(list)
    if r.returncode or not r.stdout.strip():
        return by
    report = json.loads(r.stdout)
    for l in report.get("loops", []):
        by[l["function"]].append((*classify(l), l))
    by.parameters = report.get("parameters") or []
    return by


MODELS = ("Roofline", "ECM", "PPR")


def kernel_row(name, meas, loops):
    """(name, measured, headline seconds, error, nests, what the headlines
    are, seconds by model) of a function whose nests are all priced."""
    pred = sum(s for s, _, _ in loops)
    by_model = {}
    for m in MODELS:
        parts = [model_seconds(l, m) for _, _, l in loops]
        by_model[m] = None if None in parts else sum(parts)
    heads = ", ".join(f"{(l.get('prediction') or {}).get('model', '?')} "
                      f"{(l.get('prediction') or {}).get('data_level', '?')}" for _, _, l in loops)
    return (name, meas, pred, (pred - meas) / meas, len(loops), heads, by_model)


def figures(pairs):
    """Error figures of (measured, predicted) pairs, in words."""
    errs = [abs(p - m) / m for m, p in pairs]
    return (f"median {100 * statistics.median(errs):.1f} %, mean {100 * statistics.mean(errs):.1f} %; "
            f"within 10 %: {100 * sum(e <= 0.10 for e in errs) / len(errs):.0f} %, within 25 %: "
            f"{100 * sum(e <= 0.25 for e in errs) / len(errs):.0f} %; off by more than 2x: "
            f"{sum(p > 2 * m or p < m / 2 for m, p in pairs)}; Kendall's tau "
            f"{kendall_tau([m for m, _ in pairs], [p for _, p in pairs]):.2f}")


def core_share():
    """The least, median and most independent adds a cycle of
    core_share.c on this core now: a line for the suite's header."""
    here = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "core_share")
        if subprocess.run(["clang-19", "-O2", os.path.join(here, "core_share.c"), "-o", exe]).returncode:
            return "core: core_share.c does not build"
        lo, med, hi = subprocess.run([exe], capture_output=True, text=True).stdout.split()
    return (f"core now: {med} independent adds a cycle (median of 15; {lo}-{hi}): about 3.8 where "
            "a 4-ALU core is this thread's alone, less where a neighbour's thread shares it")


def report(suite, label, rows, declined):
    n = len(rows) + sum(declined.values())
    print(core_share())  # the core's state now (beside the timings where they were made now)
    if CLOCKS:
        print(f"clock of the timings: {statistics.median(CLOCKS):.3f} GHz (median of {len(CLOCKS)}, "
              f"{min(CLOCKS):.3f}-{max(CLOCKS):.3f}; the predictions use it unless ANALYZE_ARGS sets one)")
    print(f"\n{suite} {label}: {n} kernels, {len(rows)} priced and timed, "
          f"{sum(declined.values())} declined ({100 * sum(declined.values()) / max(1, n):.0f} %)")
    for why, c in declined.most_common():
        print(f"  declined {c}: {why}")
    if not rows:
        return
    print(f"  headline ({len(rows)}): {figures([(r[1], r[2]) for r in rows])}")
    for m in MODELS:
        pairs = [(r[1], r[6][m]) for r in rows if r[6][m]]
        if pairs:
            print(f"  {m} ({len(pairs)}): {figures(pairs)}")
    print("  worst (headline):")
    for r in sorted(rows, key=lambda r: -abs(r[3]))[:10]:
        print(f"    {r[0]:16s} measured {r[1]:.4g} s, predicted {r[2]:.4g} s ({100 * r[3]:+.0f} %): {r[5]}")


def priced(name, loops):
    """None where every nest of the function is priced, else why not."""
    if not loops:
        return "no loop found in " + name
    return next((w for _, w, _ in loops if w), None)


def decline_key(why):
    """A decline's reason, shortened to count like ones together."""
    parts = why.split(":")
    return parts[0] + (": " + parts[1].strip()[:50] if len(parts) > 1 else "")


def price_row(rows, declined, label, meas, function, by, width):
    """LABEL's row where every nest of FUNCTION in BY (predict_all) is
    priced with its sizes bound, else the reason it is declined, counted."""
    loops = by.get(function, [])
    free = loops and unbound(loops, by.parameters)
    why = priced(function, loops) or (free and "sizes unbound: " + free)
    if why:
        declined[decline_key(why)] += 1
        print(f"{label:{width}s} {meas:10.4g} {'-':>10s} {'':>8s}  {why}")
        return
    add_row(rows, label, meas, loops, width)


def add_row(rows, label, meas, loops, width=16):
    """Appends the priced row of LABEL to ROWS and prints it."""
    rows.append(kernel_row(label, meas, loops))
    r = rows[-1]
    print(f"{label:{width}s} {meas:10.4g} {r[2]:10.4g} {100 * r[3]:+7.1f} %  {r[4]} nest(s): {r[5]}")


def run_tsvc(perfmodel, src_dir, iterations, runs):
    rows, declined = [], collections.Counter()
    with tempfile.TemporaryDirectory() as tmp:
        times, src, err = tsvc_times(src_dir, iterations, runs, tmp)
        if err:
            print(err)
            return
        times = kept_times(times) if times else kept_times(json.load(open(os.environ["TIMES"])))
        # Sizes s174 and s162 read from their argument, bound to what
        # TSVC's main passes them (LEN_1D/2 and n1 = 1), as a user would.
        by = predict_all(perfmodel, src, ["-O3", "-march=native", f"-I{os.path.dirname(src)}"],
                         ["M=16000", "k=1"])
        for name, meas in sorted(times.items()):
            loops = by.get(name, [])
            why = priced(name, loops)
            if why:
                declined[decline_key(why)] += 1
                print(f"{name:16s} {meas:10.4g} {'-':>10s} {'':>8s}  {why}")
                continue
            if meas <= 0:
                declined["timed 0 s"] += 1
                continue
            add_row(rows, name, meas, loops)
    report("TSVC_2", f"iterations={iterations}", rows, declined)


LCALS_FLAGS = ["-std=c++11", "-DLCALS_USE_DOUBLE", "-DLCALS_USE_RESTRICT_PTR", "-DLCALS_VERIFY_CHECKSUM",
               "-DLCALS_USE_CLOCK", "-DLCALS_COMPILER_CLANG", "-O3", "-march=native"]


def lcals_times(root, subset, runs, tmp):
    """{(benchmark, arg): seconds per state iteration}, the median of RUNS
    processes of Google Benchmark, of one Raw subset; or an error."""
    exe = os.path.join(tmp, "raw" + subset)
    srcs = [os.path.join(root, f) for f in ("main.cxx", f"Subset{subset}RawLoops/RawSubset{subset}benchmarks.cxx",
                                            "LCALSStats.cxx", "LCALSSuite.cxx", "LCALSTraversalMethods.cxx",
                                            "runReferenceLoops.cxx")]
    r = subprocess.run(["clang++-19", *LCALS_FLAGS, f"-I{root}", *srcs, "-lbenchmark", "-lpthread", "-o", exe],
                       capture_output=True, text=True)
    if r.returncode:
        return None, f"subset {subset} does not build (libbenchmark-dev?)"
    return benchmark_times(exe, runs, os.path.join(tmp, f"times{subset}"),
                           lambda name: "/".join(name.split("/")[:2])), None


def benchmark_times(exe, runs, out_prefix, key=lambda name: name, cwd=None):
    """{key(benchmark name): seconds per state iteration} of a Google
    Benchmark program: one repetition in each of RUNS processes, the median
    of the processes: some loops run at one of two speeds for a whole
    process (LCALS's DIFF_PREDICT and INT_PREDICT at 171: 0.46 or 0.62 us,
    0.30 or 0.40 us on the Zen 5 VM, both fast or both slow in a process),
    which repetitions within one process do not sample."""
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    samples = collections.defaultdict(list)
    for run in range(runs):
        out = f"{out_prefix}-{run}.json"
        timed([exe, "--benchmark_format=json", f"--benchmark_out={out}"], capture_output=True,
              timeout=3600, cwd=cwd)
        for b in json.load(open(out))["benchmarks"]:
            if b.get("run_type", "iteration") == "iteration":
                samples[key(b["run_name"])].append(b["real_time"] * scale[b["time_unit"]])
    return {k: statistics.median(v) for k, v in samples.items()}


def unbound(loops, parameters):
    """The sizes a function's nests' bounds took by default (a run-time
    object's fields a user would have to bind), or None."""
    defaults = [p["name"] for p in parameters if p.get("origin") == "default"]
    names = sorted({n for _, _, l in loops for lv in l.get("nest") or [] for n in defaults
                    if n in (lv.get("lower") or "") + " " + (lv.get("upper") or "")})
    return ", ".join(names) or None


def adomain_sizes(arg):
    """-D for the fields of LCALS's ADomain (SubsetDataA.hxx) built for the
    length enum ARG (LONG 0, MEDIUM 1, SHORT 2), as a user reads them off
    its constructor: rzmax = 28/16/4 in 3D (COUPLE, VOL3D), 156/64/8 in 2D
    (DEL_DOT_VEC_2D, its only user of n_real_zones); NPNL 2, NPNR 1."""
    if arg not in ("0", "1", "2"):
        return []
    r3, r2 = (28, 16, 4)[int(arg)], (156, 64, 8)[int(arg)]
    lo, hi = 2, r3 + 1
    jp = hi - lo + 1 + 3
    kp = jp * (hi - lo + 1 + 3)
    nnalls = kp * (hi - lo + 1 + 3)
    frn, lrn = 2 * (kp + jp) + 2, nnalls - 1 - (kp + jp) - 1
    fields = {"imin": lo, "jmin": lo, "kmin": lo, "imax": hi, "jmax": hi, "kmax": hi, "jp": jp, "kp": kp,
              "fpz": frn - jp - kp - 1, "lpz": lrn, "n_real_zones": (r2 - 1) ** 2}
    return [f"domain.{k}={v}" for k, v in fields.items()]


def lcals_row_lengths(src):
    """-D for the rows of LCALS's 2D arrays, reached through row pointers
    (`Real_ptr* px = loop_data.array_2D_Nx25_Real[0]`): perfmodel takes such
    rows as laid end to end, each as long as the columns the nest reaches,
    and says so in a note that names the size to bind (`px[*].len`). A user
    reads the true lengths off LCALSSuite.cxx's allocation: Nx25 rows are 25
    long, 64x64 rows 64, and the 7 rows of a 7xN array are aligned_chunksize
    apart, ((max_loop_length + 20) / 32 + 1) * 32 = 44256 for the longest
    length, 44217 (the same for every length run)."""
    lengths = {"Nx25": 25, "64x64": 64, "7xN": 44256}
    found = {}
    for m in re.finditer(r"Real_ptr\*\s+(\w+)\s*=\s*loop_data\.array_2D_(\w+?)_Real\b", open(src).read()):
        if m.group(2) in lengths:
            found[m.group(1)] = lengths[m.group(2)]
    return [f"{name}[*].len={n}" for name, n in sorted(found.items())]


def run_lcals(perfmodel, root, runs):
    """LCALS (llvm-test-suite MicroBenchmarks/LCALS), the Raw loops of
    subsets A, B and C: each benchmark at each of its lengths, bound as a
    user would (-D 'state.range(0)=N', and -D 'state.size()=1': the seconds
    of one pass of the benchmark's state loop, the time Google Benchmark
    reports), and ADomain's fields for the benchmarks whose argument is the
    length enum (adomain_sizes); a function whose nests need other sizes is
    counted as declined for them."""
    rows, declined = [], collections.Counter()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.environ.get("TIMES")
        kept = json.load(open(path)) if path and os.path.exists(path) else {}
        for subset in "ABC":
            # A subset whose timings are kept is not run again (as TSVC_2).
            mine = {k.split(":", 1)[1]: v for k, v in kept.items() if k.startswith(subset + ":")}
            times, err = (mine, None) if mine else lcals_times(root, subset, runs, tmp)
            if err:
                print(err)
                return
            times = kept_times({f"{subset}:{k}": v for k, v in times.items()})
            src = os.path.join(root, f"Subset{subset}RawLoops/RawSubset{subset}benchmarks.cxx")
            by_arg = {}
            # ROWS=assumed leaves the row pointers' rows at perfmodel's assumption.
            lengths = [] if os.environ.get("ROWS") == "assumed" else lcals_row_lengths(src)
            for key, meas in sorted(times.items()):
                name, arg = key.split(":")[1].split("/")
                if arg not in by_arg:
                    by_arg[arg] = predict_all(perfmodel, src, LCALS_FLAGS + [f"-I{root}"], [f"state.range(0)={arg}", "state.size()=1", *adomain_sizes(arg), *lengths])
                price_row(rows, declined, f"{name}/{arg}", meas, name, by_arg[arg], 26)
    report("LCALS", "Raw subsets A-C", rows, declined)


IMAGE_FLAGS = ["-O3", "-march=native", "-ffp-contract=off", "-DFMA_DISABLED=1"]


def image_benchmarks(main_src, kernel_srcs):
    """The Google Benchmark functions of an ImageProcessing main.cpp: (name,
    kernel, kernel source, {kernel parameter: index of state.range}) as a
    user binds them: the kernel each calls in its state loop, and which of
    the call's arguments are locals set from state.range(K)."""
    text = open(main_src).read()
    defines = {}
    for h in glob.glob(os.path.join(os.path.dirname(main_src), "*.h")) + [main_src]:
        for n, v in re.findall(r"^#define\s+(\w+)\s+(\d+)\s*$", open(h).read(), re.M):
            defines[n] = v
    sigs = {}
    for k in kernel_srcs:
        for m in re.finditer(r"^void\s+(\w+)\s*\(([^)]*)\)\s*\{", open(k).read(), re.M):
            params = [re.match(r"\s*(?:const\s+)?\w+\s*\**\s*(\w+)", a).group(1)
                      for a in re.split(r",(?![^\[]*\])", m.group(2))]
            sigs[m.group(1)] = (k, params)
    out = []
    for m in re.finditer(r"void\s+(BENCHMARK_\w+)\s*\(benchmark::State\s*&\s*state\)\s*\{(.*?)\n\}",
                         text, re.S):
        body = m.group(2)
        ranges = {v: int(i) for v, i in re.findall(r"int\s+(\w+)\s*=\s*state\.range\((\d)\);", body)}
        call = re.search(r"KeepRunning\(\)\)\s*\{\s*(\w+)\s*\(([^;]*)\);", body)
        if not call or call.group(1) not in sigs:
            continue
        src, params = sigs[call.group(1)]
        args = [a.strip() for a in call.group(2).split(",")]
        bind = {params[i]: ranges[a] for i, a in enumerate(args) if a in ranges and i < len(params)}
        # Constants passed as they are (ITERATION, a #define of the
        # program's headers, or a literal): bound to their values.
        for i, a in enumerate(args):
            if i < len(params) and params[i] not in bind:
                if a.isdigit():
                    bind[params[i]] = a
                elif a in defines:
                    bind[params[i]] = defines[a]
        out.append((m.group(1), call.group(1), src, bind))
    return out


def image_times(d, runs, tmp):
    """{benchmark/args: seconds per call}, the median of RUNS processes of
    one ImageProcessing program; or an error."""
    name = os.path.basename(d)
    utils = os.path.join(os.path.dirname(d), "utils")
    exe = os.path.join(tmp, name)
    objs = []
    for c in sorted(glob.glob(os.path.join(d, "*.c"))) + [os.path.join(utils, "glibc_compat_rand.c")]:
        o = os.path.join(tmp, name + "-" + os.path.basename(c) + ".o")
        if subprocess.run(["clang-19", *IMAGE_FLAGS, f"-I{utils}", f"-I{d}", "-c", c, "-o", o]).returncode:
            return None, f"{name}: {os.path.basename(c)} does not build"
        objs.append(o)
    r = subprocess.run(["clang++-19", *IMAGE_FLAGS, f"-I{utils}", f"-I{d}", os.path.join(d, "main.cpp"),
                        os.path.join(utils, "ImageHelper.cpp"), *objs, "-lbenchmark", "-lpthread", "-lm",
                        "-o", exe], capture_output=True, text=True)
    if r.returncode:
        return None, f"{name} does not build (libbenchmark-dev?)"
    return benchmark_times(exe, runs, os.path.join(tmp, name), cwd=d), None


def run_images(perfmodel, root, runs):
    """llvm-test-suite's MicroBenchmarks/ImageProcessing (blur, dilate,
    dither, interpolation, diffusion, bilateral filter): each Google
    Benchmark at each of its arguments, its kernel's file analysed with the
    kernel's size parameters bound to the arguments its state loop passes
    (-D height=128 -D width=128), a call's seconds the sum of the kernel's
    nests' headline seconds."""
    rows, declined = [], collections.Counter()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.environ.get("TIMES")
        kept = json.load(open(path)) if path and os.path.exists(path) else {}
        for d in sorted(glob.glob(os.path.join(root, "*", "main.cpp"))):
            d = os.path.dirname(d)
            name = os.path.basename(d)
            mine = {k.split(":", 1)[1]: v for k, v in kept.items() if k.startswith(name + ":")}
            times, err = (mine, None) if mine else image_times(d, runs, tmp)
            if err:
                print(err)
                continue
            times = kept_times({f"{name}:{k}": v for k, v in times.items()})
            kernels = [k for k in glob.glob(os.path.join(d, "*.c"))]
            benches = {b[0]: b for b in image_benchmarks(os.path.join(d, "main.cpp"), kernels)}
            utils = os.path.join(os.path.dirname(d), "utils")
            for key, meas in sorted(times.items()):
                bench, *args = key.split(":", 1)[1].split("/")
                label = key.split(":", 1)[1]
                if bench not in benches:
                    declined["no kernel call found in the benchmark"] += 1
                    print(f"{label:40s} {meas:10.4g} {'-':>10s} {'':>8s}  no kernel call found")
                    continue
                _, kernel, src, bind = benches[bench]
                sizes = [f"{p}={i}" if isinstance(i, str) else f"{p}={args[i]}"
                         for p, i in bind.items() if isinstance(i, str) or i < len(args)]
                by = predict_all(perfmodel, src, IMAGE_FLAGS + [f"-I{utils}", f"-I{d}"], sizes)
                price_row(rows, declined, label, meas, kernel, by, 40)
    report("ImageProcessing", "(llvm-test-suite MicroBenchmarks)", rows, declined)


def main():
    suite, perfmodel, root, ds, runs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
    if suite == "tsvc":
        return run_tsvc(perfmodel, root, int(ds), runs)
    if suite == "lcals":
        return run_lcals(perfmodel, root, runs)
    if suite == "images":
        return run_images(perfmodel, root, runs)
    rows, declined = [], collections.Counter()
    # Each kernel is predicted before it is timed: the clock so far, from
    # three readings now on (or the one kept with TIMES).
    path = os.environ.get("TIMES")
    kept_clock = json.load(open(path)).get("_clock_ghz") if path and os.path.exists(path) else None
    if kept_clock:
        CLOCKS.append(kept_clock)
    else:
        for _ in range(3):
            clock_now()
    with tempfile.TemporaryDirectory() as tmp:
        for name, src, sizes, flags in polybench_kernels(root, ds):
            function = "kernel_" + name.replace("-", "_")
            loops = predict_all(perfmodel, src, flags, sizes).get(function, [])
            why = priced(function, loops)
            if why:
                declined[why] += 1
                print(f"{name:16s} {'-':>10s} {'-':>10s} {'':>8s}  {why}")
                continue
            meas, err = kept_times({name: None}, lambda: time_polybench(root, src, flags, runs, tmp))[name]
            if meas is None or meas <= 0:
                declined[err or "no time"] += 1
                print(f"{name:16s} {'-':>10s} {sum(s for s, _, _ in loops):10.4g} {'':>8s}  {err}")
                continue
            add_row(rows, name, meas, loops)
    report(suite, ds, rows, declined)


if __name__ == "__main__":
    main()
