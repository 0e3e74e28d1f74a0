// The benchmarks' command lines (bench/bench_args.hpp): a bad argument is a message naming it and exit status 2,
// never an abort; --help prints the usage.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_args.hpp"

namespace {

using kempe::bench::integer_argument;
using kempe::bench::number_argument;
using kempe::bench::run_main;
using kempe::bench::UsageError;
using ::testing::HasSubstr;

/// The message of the UsageError that `call` throws, or "" where it throws none.
template <class Call>
std::string usage_error(Call&& call) {
  try {
    call();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(BenchArgs, WholeNumbersInTheirRange) {
  EXPECT_EQ(integer_argument("700", "N", 1, 4000), 700);
  EXPECT_EQ(integer_argument("1", "N", 1, 4000), 1);
  EXPECT_EQ(integer_argument("-3", "SHIFT", -5, 5), -3);
  EXPECT_EQ(usage_error([] { integer_argument("300", "N", 1, 4000); }), "");
  for (const char* bad : {"", "x", "12x", "1.5", "0", "4001", "99999999999999999999999"}) {
    const std::string message = usage_error([bad] { integer_argument(bad, "N", 1, 4000); });
    EXPECT_THAT(message, HasSubstr("N must be a whole number from 1 to 4000")) << bad;
    EXPECT_THAT(message, HasSubstr(std::string("not '") + bad + "'")) << bad;
  }
}

TEST(BenchArgs, NumbersInTheirRange) {
  EXPECT_DOUBLE_EQ(number_argument("0.015", "BAND", 1e-6, 1.0), 0.015);
  EXPECT_DOUBLE_EQ(number_argument("1", "BAND", 1e-6, 1.0), 1.0);
  for (const char* bad : {"", "band", "0", "1e-9", "1.5", "nan", "inf", "-0.1", "0.1x", "1e999"}) {
    const std::string message = usage_error([bad] { number_argument(bad, "BAND", 1e-6, 1.0); });
    EXPECT_THAT(message, HasSubstr("BAND must be a number above 1e-06 and at most 1")) << bad;
    EXPECT_THAT(message, HasSubstr(std::string("not '") + bad + "'")) << bad;
  }
}

/// run_main's status, stdout and stderr for these arguments and body.
struct Outcome {
  int status;
  std::string out, err;
};
template <class Body>
Outcome outcome(std::initializer_list<const char*> args, Body&& body) {
  std::vector<char*> argv{const_cast<char*>("prog")};
  for (const char* a : args) argv.push_back(const_cast<char*>(a));
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int status = run_main("prog", "usage: prog N\n", int(argv.size()), argv.data(), body);
  const std::string out = ::testing::internal::GetCapturedStdout();
  return {status, out, ::testing::internal::GetCapturedStderr()};
}

TEST(BenchArgs, MainsExitWithAMessageInsteadOfAnAbort) {
  bool ran = false;
  const Outcome help = outcome({"3", "--help"}, [&] { return ran = true, 0; });
  EXPECT_EQ(help.status, 0);
  EXPECT_FALSE(ran) << "--help runs nothing";
  EXPECT_EQ(help.out, "usage: prog N\n");
  EXPECT_EQ(outcome({"-h"}, [] { return 0; }).out, "usage: prog N\n");

  const Outcome fine = outcome({"3"}, [] { return 7; });
  EXPECT_EQ(fine.status, 7);
  EXPECT_EQ(fine.err, "");

  const Outcome bad = outcome({"x"}, [] { return int(integer_argument("x", "N", 1, 9)); });
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.err, "prog: N must be a whole number from 1 to 9, not 'x'\nusage: prog N\n");

  // A name the library does not know (a backend, a strategy) is a usage error too.
  const Outcome unknown = outcome({"gpu"}, []() -> int { throw std::invalid_argument("unknown backend 'gpu'"); });
  EXPECT_EQ(unknown.status, 2);
  EXPECT_THAT(unknown.err, HasSubstr("prog: unknown backend 'gpu'\nusage: prog N"));

  // A failure while running is reported without the usage.
  const Outcome failed = outcome({}, []() -> int { throw std::runtime_error("out of memory for 9 GiB"); });
  EXPECT_EQ(failed.status, 1);
  EXPECT_EQ(failed.err, "prog: out of memory for 9 GiB\n");
}

}  // namespace
