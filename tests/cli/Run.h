//===- Run.h - Running perfmodel from the CLI tests ---------------*- C++ -*-===//
#ifndef PERFMODEL_TESTS_RUN_H
#define PERFMODEL_TESTS_RUN_H

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace {

const std::string Src = PERFMODEL_SOURCE_DIR;

struct CmdResult {
  int Code = -1;
  std::string Out, Err;
};

inline std::string slurp(const std::string &Path) {
  std::ifstream In(Path);
  std::stringstream SS;
  SS << In.rdbuf();
  return SS.str();
}

/// Runs the shell command CMD; standard output and error apart.
inline CmdResult shell(const std::string &Command) {
  char ErrPath[] = "/tmp/perfmodel-cli-XXXXXX";
  int Fd = mkstemp(ErrPath);
  close(Fd);
  std::string Cmd = "(" + Command + ") 2>" + ErrPath;
  CmdResult R;
  FILE *P = popen(Cmd.c_str(), "r");
  std::array<char, 4096> Buf;
  size_t N;
  while ((N = fread(Buf.data(), 1, Buf.size(), P)) > 0)
    R.Out.append(Buf.data(), N);
  int Status = pclose(P);
  R.Code = WIFEXITED(Status) ? WEXITSTATUS(Status) : -1;
  R.Err = slurp(ErrPath);
  std::remove(ErrPath);
  return R;
}

/// Runs perfmodel ARGS from the source directory.
inline CmdResult perfmodel(const std::string &Args) {
  return shell("cd '" + Src + "' && '" + PERFMODEL_BINARY + "' " + Args);
}

} // namespace

#endif
