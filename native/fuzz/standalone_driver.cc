// A mutation driver for builds without libFuzzer (g++ has the sanitizers but not the fuzzer): it runs every
// seed, then mutates seeds at random until the time is up, calling the same LLVMFuzzerTestOneInput. No coverage
// feedback, so it finds less per hour than libFuzzer; it exists so that every machine that builds the addon can
// fuzz it, CI included. A crash, sanitizer report, contract abort or hang saves the input under --artifacts.
//   onnx_fuzz [--seconds N] [--seed S] [--timeout-seconds T] [--artifacts DIR] CORPUS_DIR_OR_FILE...
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
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

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
// From the sanitizer runtime the build links; called before a sanitizer report ends the process.
extern "C" void __sanitizer_set_death_callback(void (*callback)()) __attribute__((weak));

namespace {

using Input = std::vector<uint8_t>;

// What the signal handlers save: set before each run, read only by async-signal-safe code.
const Input* g_current = nullptr;
char g_crash_path[4096] = {};

void save_current() {
  if (g_current == nullptr) return;
  const int file = open(g_crash_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (file < 0) return;
  size_t done = 0;
  while (done < g_current->size()) {
    const ssize_t wrote = write(file, g_current->data() + done, g_current->size() - done);
    if (wrote <= 0) break;
    done += static_cast<size_t>(wrote);
  }
  close(file);
  const char message[] = "\nmlrb fuzz: the failing input was saved to ";
  (void)!write(STDERR_FILENO, message, sizeof(message) - 1);
  (void)!write(STDERR_FILENO, g_crash_path, strlen(g_crash_path));
  (void)!write(STDERR_FILENO, "\n", 1);
}

void on_fatal_signal(int signal_number) {
  if (signal_number == SIGALRM) {
    const char message[] = "\nmlrb fuzz: an input ran past the time limit (a hang)";
    (void)!write(STDERR_FILENO, message, sizeof(message) - 1);
  }
  save_current();
  ::signal(signal_number, SIG_DFL);
  raise(signal_number == SIGALRM ? SIGABRT : signal_number);
}

Input read_file(const std::filesystem::path& path) {
  std::ifstream stream(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(stream), std::istreambuf_iterator<char>()};
}

std::vector<Input> load_seeds(const std::vector<std::string>& places) {
  std::vector<Input> seeds;
  for (const std::string& place : places) {
    if (std::filesystem::is_directory(place)) {
      for (const auto& entry : std::filesystem::directory_iterator(place)) {
        if (entry.is_regular_file()) seeds.push_back(read_file(entry.path()));
      }
    } else if (std::filesystem::is_regular_file(place)) {
      seeds.push_back(read_file(place));
    }
  }
  return seeds;
}

// Mutations that reach the readers' edge cases: protobuf varints (lengths, field numbers, dims) live in
// single bytes, so byte-level edits, interesting values and chunk moves cover truncation, overlong fields,
// duplicated fields and wrong wire types.
void mutate(Input& input, const std::vector<Input>& seeds, std::mt19937_64& random) {
  static constexpr uint8_t kInteresting[] = {0x00, 0x01, 0x7f, 0x80, 0xff, 0x08, 0x10, 0x12, 0x1a, 0x22, 0x3a};
  const int edits = 1 + static_cast<int>(random() % 4);
  for (int edit = 0; edit < edits; ++edit) {
    if (input.empty()) input.push_back(0);
    const size_t at = random() % input.size();
    switch (random() % 7) {
      case 0: input[at] ^= static_cast<uint8_t>(1U << (random() % 8)); break;
      case 1: input[at] = kInteresting[random() % sizeof(kInteresting)]; break;
      case 2:
        input.erase(input.begin() + static_cast<std::ptrdiff_t>(at),
                    input.begin() + static_cast<std::ptrdiff_t>(std::min(input.size(), at + 1 + random() % 64)));
        break;
      case 3: {
        const size_t length = std::min<size_t>(input.size() - at, 1 + random() % 64);
        const Input chunk(input.begin() + static_cast<std::ptrdiff_t>(at), input.begin() + static_cast<std::ptrdiff_t>(at + length));
        input.insert(input.begin() + static_cast<std::ptrdiff_t>(random() % input.size()), chunk.begin(), chunk.end());
        break;
      }
      case 4: input.resize(at + 1); break;
      case 5: {  // an overlong varint: a length or dim far beyond the data
        const uint8_t big[] = {0xff, 0xff, 0xff, 0xff, 0x0f};
        input.insert(input.begin() + static_cast<std::ptrdiff_t>(at), std::begin(big), std::end(big));
        break;
      }
      default: {  // splice: the head of this input with the tail of another seed
        const Input& other = seeds[random() % seeds.size()];
        if (other.empty()) break;
        input.resize(at);
        const size_t from = random() % other.size();
        input.insert(input.end(), other.begin() + static_cast<std::ptrdiff_t>(from), other.end());
        break;
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 60;
  uint64_t seed = 1;
  unsigned timeout_seconds = 20;
  std::string artifacts = ".";
  std::vector<std::string> places;
  for (int i = 1; i < argc; ++i) {
    const std::string argument = argv[i];
    const bool has_value = i + 1 < argc;
    if (argument == "--seconds" && has_value) seconds = std::atof(argv[++i]);
    else if (argument == "--seed" && has_value) seed = std::strtoull(argv[++i], nullptr, 10);
    else if (argument == "--timeout-seconds" && has_value) timeout_seconds = static_cast<unsigned>(std::atoi(argv[++i]));
    else if (argument == "--artifacts" && has_value) artifacts = argv[++i];
    else places.push_back(argument);
  }
  const std::vector<Input> seeds = load_seeds(places);
  if (seeds.empty()) {
    std::fprintf(stderr, "usage: onnx_fuzz [--seconds N] [--seed S] [--timeout-seconds T] [--artifacts DIR] CORPUS...\n(no seed inputs found)\n");
    return 2;
  }
  std::filesystem::create_directories(artifacts);
  std::snprintf(g_crash_path, sizeof(g_crash_path), "%s/crash-%d.onnx", artifacts.c_str(), static_cast<int>(getpid()));
  if (__sanitizer_set_death_callback != nullptr) __sanitizer_set_death_callback(save_current);
  for (const int signal_number : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGALRM}) ::signal(signal_number, on_fatal_signal);

  std::mt19937_64 random(seed);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  uint64_t runs = 0;
  const auto run = [&](const Input& input) {
    g_current = &input;
    alarm(timeout_seconds);
    LLVMFuzzerTestOneInput(input.data(), input.size());
    alarm(0);
    ++runs;
  };
  for (const Input& input : seeds) run(input);
  Input input;
  while (std::chrono::steady_clock::now() < deadline) {
    input = seeds[random() % seeds.size()];
    mutate(input, seeds, random);
    run(input);
  }
  std::printf("mlrb fuzz: %llu inputs from %zu seeds in %.0f s (seed %llu), no crash, hang or broken contract\n",
              static_cast<unsigned long long>(runs), seeds.size(), seconds, static_cast<unsigned long long>(seed));
  return 0;
}
