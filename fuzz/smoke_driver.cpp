// The fuzz targets' main() where libFuzzer is not linked (GCC builds, make test): replays every corpus file, then
// mutates corpus inputs at random for a bounded time or number of runs. It has no coverage guidance; it keeps the
// targets running on every build and finds what a few hundred thousand blind mutations find. Accepts the
// libFuzzer flags it needs, so a test command works with either main:
//   kempe_fuzz_X [-max_total_time=S] [-runs=N] [-seed=K] [-timeout=S] [-artifact_prefix=P] CORPUS_DIR_OR_FILE...
// An input that crashes or runs past the timeout is written to P + "crash-<run>" (or "timeout-<run>"), and the
// driver dies with the signal, so that the test fails and the input can be replayed by passing that file. With
// -artifact_prefix, the slowest input is kept too (P + "slowest").
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int* argc, char*** argv);

namespace {

// What the signal handlers need, set before each run (plain globals: only async-signal-safe calls read them).
const std::uint8_t* current_data = nullptr;
std::size_t current_size = 0;
char crash_path[4096];
char timeout_path[4096];

void write_input(const char* path) {
  const int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return;
  std::size_t done = 0;
  while (done < current_size) {
    const ssize_t n = ::write(fd, current_data + done, current_size - done);
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
}

void say(const char* a, const char* b) {
  (void)!::write(STDERR_FILENO, a, std::strlen(a));
  (void)!::write(STDERR_FILENO, b, std::strlen(b));
  (void)!::write(STDERR_FILENO, "\n", 1);
}

void on_crash(int signal) {
  write_input(crash_path);
  say("smoke fuzz: the input that crashed is in ", crash_path);
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

void on_timeout(int) {
  write_input(timeout_path);
  say("smoke fuzz: the input that ran past the timeout is in ", timeout_path);
  std::signal(SIGABRT, SIG_DFL);
  std::abort();
}

using Bytes = std::vector<std::uint8_t>;

/// Values that break parsers and counts more often than random ones.
constexpr std::uint64_t interesting_words[] = {0, 1, 2, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFF,
                                               0x80000000, 0xFFFFFFFF, 0x7FFFFFFFFFFFFFFFull, ~0ull};
constexpr const char* interesting_numbers[] = {"0",  "-1", "1",   "2147483647", "2147483648", "4294967296", "-2147483649",
                                               "1e308", "-1e308", "nan", "inf", "1e-320", "99999999999999999999", "3"};

void mutate(Bytes& b, const std::vector<Bytes>& corpus, std::mt19937_64& rng) {
  auto pick = [&](std::size_t n) { return n == 0 ? std::size_t{0} : static_cast<std::size_t>(rng() % n); };
  switch (rng() % 9) {
    case 0:  // flip a bit
      if (!b.empty()) b[pick(b.size())] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
      break;
    case 1:  // a random byte
      if (!b.empty()) b[pick(b.size())] = static_cast<std::uint8_t>(rng());
      break;
    case 2: {  // an interesting word of 1, 2, 4 or 8 bytes
      const std::size_t width = std::size_t{1} << (rng() % 4);
      if (b.size() < width) break;
      const std::uint64_t w = interesting_words[pick(std::size(interesting_words))];
      std::memcpy(&b[pick(b.size() - width + 1)], &w, width);
      break;
    }
    case 3: {  // erase a range
      if (b.empty()) break;
      const std::size_t at = pick(b.size()), n = 1 + pick(std::min<std::size_t>(b.size() - at, 64));
      b.erase(b.begin() + static_cast<std::ptrdiff_t>(at), b.begin() + static_cast<std::ptrdiff_t>(at + n));
      break;
    }
    case 4: {  // copy a range elsewhere
      if (b.empty()) break;
      const std::size_t from = pick(b.size()), n = 1 + pick(std::min<std::size_t>(b.size() - from, 64));
      const Bytes piece(b.begin() + static_cast<std::ptrdiff_t>(from), b.begin() + static_cast<std::ptrdiff_t>(from + n));
      b.insert(b.begin() + static_cast<std::ptrdiff_t>(pick(b.size() + 1)), piece.begin(), piece.end());
      break;
    }
    case 5:  // truncate
      b.resize(pick(b.size() + 1));
      break;
    case 6: {  // replace a decimal number of a text file by an interesting one
      std::vector<std::size_t> starts;
      for (std::size_t i = 0; i < b.size(); ++i)
        if ((b[i] >= '0' && b[i] <= '9') && (i == 0 || !(b[i - 1] >= '0' && b[i - 1] <= '9') )) starts.push_back(i);
      if (starts.empty()) break;
      const std::size_t at = starts[pick(starts.size())];
      std::size_t end = at;
      while (end < b.size() && ((b[end] >= '0' && b[end] <= '9') || b[end] == '.' || b[end] == 'e')) ++end;
      const std::string number = interesting_numbers[pick(std::size(interesting_numbers))];
      b.erase(b.begin() + static_cast<std::ptrdiff_t>(at), b.begin() + static_cast<std::ptrdiff_t>(end));
      b.insert(b.begin() + static_cast<std::ptrdiff_t>(at), number.begin(), number.end());
      break;
    }
    case 7: {  // splice: the start of this input, the end of another
      const Bytes& other = corpus[pick(corpus.size())];
      if (b.empty() || other.empty()) break;
      const std::size_t keep = pick(b.size()), from = pick(other.size());
      b.resize(keep);
      b.insert(b.end(), other.begin() + static_cast<std::ptrdiff_t>(from), other.end());
      break;
    }
    default: {  // duplicate a line (a repeated element, node or key)
      if (b.empty()) break;
      std::size_t at = pick(b.size());
      while (at > 0 && b[at - 1] != '\n') --at;
      std::size_t end = at;
      while (end < b.size() && b[end] != '\n') ++end;
      if (end < b.size()) ++end;
      const Bytes line(b.begin() + static_cast<std::ptrdiff_t>(at), b.begin() + static_cast<std::ptrdiff_t>(end));
      b.insert(b.begin() + static_cast<std::ptrdiff_t>(end), line.begin(), line.end());
      break;
    }
  }
}

Bytes read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

int main(int argc, char** argv) {
  double max_seconds = 10;
  long long runs = -1;
  std::uint64_t seed = 1;
  unsigned timeout = 60;
  std::string prefix = "./";
  bool keep_slowest = false;  // only where -artifact_prefix names a place for it
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const char* flag) -> const char* {
      const std::size_t n = std::strlen(flag);
      return arg.compare(0, n, flag) == 0 ? argv[i] + n : nullptr;
    };
    if (const char* v = value("-max_total_time=")) max_seconds = std::atof(v);
    else if (const char* r = value("-runs=")) runs = std::atoll(r);
    else if (const char* s = value("-seed=")) seed = std::strtoull(s, nullptr, 10);
    else if (const char* t = value("-timeout=")) timeout = static_cast<unsigned>(std::atoi(t));
    else if (const char* p = value("-artifact_prefix=")) {
      prefix = p;
      keep_slowest = true;
    }
    else if (!arg.empty() && arg[0] == '-') std::fprintf(stderr, "smoke fuzz: ignoring %s\n", arg.c_str());
    else if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::directory_iterator(arg))
        if (entry.is_regular_file()) files.push_back(entry.path());
    } else {
      files.emplace_back(arg);
    }
  }
  if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
  std::sort(files.begin(), files.end());
  std::vector<Bytes> corpus;
  for (const auto& f : files) corpus.push_back(read_file(f));
  if (corpus.empty()) corpus.emplace_back();

  for (int s : {SIGSEGV, SIGABRT, SIGFPE, SIGBUS, SIGILL}) std::signal(s, on_crash);
  std::signal(SIGALRM, on_timeout);
  long long run = 0;
  double slowest = 0;
  Bytes slowest_input;
  auto execute = [&](const Bytes& input) {
    std::snprintf(crash_path, sizeof crash_path, "%scrash-%lld", prefix.c_str(), run);
    std::snprintf(timeout_path, sizeof timeout_path, "%stimeout-%lld", prefix.c_str(), run);
    current_data = input.data();
    current_size = input.size();
    const auto start = std::chrono::steady_clock::now();
    ::alarm(timeout);
    LLVMFuzzerTestOneInput(input.data(), input.size());
    ::alarm(0);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (seconds > slowest) {
      slowest = seconds;
      slowest_input = input;
    }
    ++run;
  };

  const auto t0 = std::chrono::steady_clock::now();
  for (const Bytes& input : corpus) execute(input);
  const long long replayed = run;
  std::mt19937_64 rng(seed);
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  while ((runs < 0 || run < runs) && elapsed() < max_seconds) {
    Bytes input = corpus[rng() % corpus.size()];
    for (int k = 1 + static_cast<int>(rng() % 4); k > 0; --k) mutate(input, corpus, rng);
    execute(input);
  }
  // The slowest input is kept: an effort bound that holds but is too loose shows there first.
  const std::string slowest_path = keep_slowest ? prefix + "slowest" : "not kept without -artifact_prefix";
  if (keep_slowest) {
    current_data = slowest_input.data();
    current_size = slowest_input.size();
    write_input(slowest_path.c_str());
  }
  std::printf("smoke fuzz: %lld corpus inputs replayed, %lld mutated inputs run in %.1f s (seed %llu): no crash, "
              "no timeout; the slowest input took %.3f s (%s)\n",
              replayed, run - replayed, elapsed(), static_cast<unsigned long long>(seed), slowest, slowest_path.c_str());
  return 0;
}
