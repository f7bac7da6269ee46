//===- Cpuid.cpp - CPU identity and cache geometry from CPUID -------------===//
//
// The CPU's identity from CPUID: vendor, family and model, brand, SIMD and
// FMA flags, and the cache geometry (Intel's deterministic cache leaf, AMD's
// leaf 0x8000001D or its legacy leaves), with the cores sharing each level.
//
//===----------------------------------------------------------------------===//
#include "perfmodel/Probe.h"

#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

using namespace perfmodel;

CpuidFn perfmodel::hostCpuid() {
  return [](uint32_t Leaf, uint32_t Sub) {
    CpuidRegs R;
#if defined(__x86_64__) || defined(__i386__)
    uint32_t Max = __get_cpuid_max(Leaf & 0x80000000u, nullptr);
    if (Leaf <= Max)
      __cpuid_count(Leaf, Sub, R.Eax, R.Ebx, R.Ecx, R.Edx);
#else
    (void)Leaf;
    (void)Sub;
#endif
    return R;
  };
}

namespace {

/// Leaf 4 (Intel) and 0x8000001D (AMD) share one layout: EAX[4:0] type
/// (1 data, 2 instruction, 3 unified), EAX[7:5] level, EAX[25:14] threads
/// sharing - 1; EBX ways - 1 [31:22], partitions - 1 [21:12], line - 1
/// [11:0]; ECX sets - 1; EDX[1] inclusive.
std::vector<ProbedCache> deterministicLeaf(const CpuidFn &Cpuid, uint32_t Leaf,
                                           const char *Name) {
  std::vector<ProbedCache> Out;
  for (uint32_t Sub = 0; Sub < 16; ++Sub) {
    CpuidRegs R = Cpuid(Leaf, Sub);
    unsigned Type = R.Eax & 0x1f;
    if (Type == 0)
      break;
    if (Type == 2)
      continue; // instruction cache
    ProbedCache C;
    C.Level = (R.Eax >> 5) & 0x7;
    C.SharedByThreads = ((R.Eax >> 14) & 0xfff) + 1;
    C.Ways = ((R.Ebx >> 22) & 0x3ff) + 1;
    unsigned Partitions = ((R.Ebx >> 12) & 0x3ff) + 1;
    C.LineBytes = (R.Ebx & 0xfff) + 1;
    uint64_t Sets = uint64_t(R.Ecx) + 1;
    C.SizeBytes = uint64_t(C.Ways) * Partitions * C.LineBytes * Sets;
    C.Inclusive = (R.Edx >> 1) & 1;
    C.From = Name;
    Out.push_back(C);
  }
  return Out;
}

/// AMD's legacy encoding of L2/L3 associativity (0x80000006 ECX/EDX [15:12]);
/// 0 when the field defers to leaf 0x8000001D or is reserved.
unsigned amdLegacyWays(unsigned Code) {
  static const unsigned Table[16] = {0, 1, 2, 3, 4, 6, 8, 0, 16, 0, 32, 48, 64, 96, 128, 0};
  return Table[Code & 0xf];
}

std::vector<ProbedCache> amdLegacy(const CpuidFn &Cpuid) {
  std::vector<ProbedCache> Out;
  CpuidRegs L1 = Cpuid(0x80000005, 0), L23 = Cpuid(0x80000006, 0);
  if (unsigned KiB = L1.Ecx >> 24) {
    ProbedCache C;
    C.Level = 1;
    C.SizeBytes = uint64_t(KiB) << 10;
    unsigned Assoc = (L1.Ecx >> 16) & 0xff; // 0xff: fully associative
    C.LineBytes = L1.Ecx & 0xff;
    C.Ways = Assoc == 0xff && C.LineBytes ? unsigned(C.SizeBytes / C.LineBytes) : Assoc;
    C.From = "leaf 0x80000005";
    Out.push_back(C);
  }
  if (unsigned KiB = L23.Ecx >> 16) {
    ProbedCache C;
    C.Level = 2;
    C.SizeBytes = uint64_t(KiB) << 10;
    C.Ways = amdLegacyWays(L23.Ecx >> 12);
    C.LineBytes = L23.Ecx & 0xff;
    C.From = "leaf 0x80000006";
    Out.push_back(C);
  }
  if (unsigned Units = L23.Edx >> 18) { // 512 KiB units
    ProbedCache C;
    C.Level = 3;
    C.SizeBytes = uint64_t(Units) << 19;
    C.Ways = amdLegacyWays(L23.Edx >> 12);
    C.LineBytes = L23.Edx & 0xff;
    C.From = "leaf 0x80000006";
    Out.push_back(C);
  }
  return Out;
}

} // namespace

CpuIdentity perfmodel::identifyCpu(const CpuidFn &Cpuid) {
  CpuIdentity Id;
  CpuidRegs R0 = Cpuid(0, 0);
  char Vendor[13] = {};
  std::memcpy(Vendor, &R0.Ebx, 4);
  std::memcpy(Vendor + 4, &R0.Edx, 4);
  std::memcpy(Vendor + 8, &R0.Ecx, 4);
  Id.Vendor = Vendor;
  CpuidRegs R1 = Cpuid(1, 0);
  unsigned BaseFamily = (R1.Eax >> 8) & 0xf, BaseModel = (R1.Eax >> 4) & 0xf;
  Id.Family = BaseFamily == 0xf ? BaseFamily + ((R1.Eax >> 20) & 0xff) : BaseFamily;
  Id.Model = (BaseFamily == 0x6 || BaseFamily == 0xf) ? (((R1.Eax >> 16) & 0xf) << 4) | BaseModel
                                                      : BaseModel;
  Id.Sse2 = (R1.Edx >> 26) & 1;
  Id.Fma = (R1.Ecx >> 12) & 1;
  bool OsXsave = (R1.Ecx >> 27) & 1;
  Id.Avx = ((R1.Ecx >> 28) & 1) && OsXsave;
  uint32_t MaxBasic = R0.Eax;
  if (MaxBasic >= 7) {
    CpuidRegs R7 = Cpuid(7, 0);
    Id.Avx2 = Id.Avx && ((R7.Ebx >> 5) & 1);
    Id.Avx512f = Id.Avx && ((R7.Ebx >> 16) & 1);
  }
  Id.Fma = Id.Fma && Id.Avx;
  uint32_t MaxExt = Cpuid(0x80000000, 0).Eax;
  if (MaxExt >= 0x80000004) {
    char Brand[49] = {};
    for (unsigned I = 0; I < 3; ++I) {
      CpuidRegs B = Cpuid(0x80000002 + I, 0);
      std::memcpy(Brand + 16 * I, &B.Eax, 4);
      std::memcpy(Brand + 16 * I + 4, &B.Ebx, 4);
      std::memcpy(Brand + 16 * I + 8, &B.Ecx, 4);
      std::memcpy(Brand + 16 * I + 12, &B.Edx, 4);
    }
    std::string S = Brand;
    size_t B = S.find_first_not_of(' '), E = S.find_last_not_of(' ');
    Id.Brand = B == std::string::npos ? "" : S.substr(B, E - B + 1);
  }
  bool Amd = Id.Vendor == "AuthenticAMD" || Id.Vendor == "HygonGenuine";
  if (!Amd && MaxBasic >= 4)
    Id.Caches = deterministicLeaf(Cpuid, 4, "leaf 4");
  if (Amd && MaxExt >= 0x8000001D)
    Id.Caches = deterministicLeaf(Cpuid, 0x8000001D, "leaf 0x8000001D");
  if (Amd && Id.Caches.empty() && MaxExt >= 0x80000006)
    Id.Caches = amdLegacy(Cpuid);
  return Id;
}
