#include "engine/export/fmu_export.h"

#include "engine/core/monitor.h"

#include "engine/core/error.h"
#include "engine/core/file_io.h"
#include "engine/core/version.h"
#include "engine/export/c_templates.h"
#include "engine/export/fmu_documentation.h"
#include "engine/export/markup_text.h"
#include "engine/export/zip_writer.h"
#include "engine/rom/reduced_model.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

namespace mbdrom {

namespace {

namespace fs = std::filesystem;

std::string xmlNumber(double x) {
  if (std::isnan(x)) return "NaN";  // xs:double's spellings
  if (std::isinf(x)) return x > 0 ? "INF" : "-INF";
  std::ostringstream s;
  s.precision(17);
  s << x;
  return s.str();
}

std::uint64_t fnv1a(const std::string& text, std::uint64_t seed) {
  std::uint64_t h = seed;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

// A GUID from the generated sources: the same export gives the same GUID, any change another.
std::string guidOf(const CModel& m) {
  const std::string all = m.header + m.source;
  const std::uint64_t a = fnv1a(all, 14695981039346656037ull), b = fnv1a(all, 0x9e3779b97f4a7c15ull);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "{%08x-%04x-%04x-%04x-%012llx}", static_cast<unsigned>(a >> 32),
                static_cast<unsigned>((a >> 16) & 0xffffu), static_cast<unsigned>(a & 0xffffu),
                static_cast<unsigned>(b >> 48), static_cast<unsigned long long>(b & 0xffffffffffffull));
  return buffer;
}

std::string readAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void writeAll(const fs::path& path, const std::string& text) {
  errno = 0;
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out.flush() || !(out.close(), out))
    throw FileError(path.string() + ": cannot write" +
                    (errno ? " (" + std::string(std::strerror(errno)) +
                                 (errno == ENOSPC || errno == EFBIG ? "; disk full?)" : ")")
                           : std::string(" (disk full?)")));
}

// A compiler that exits 0 may still have written something else than a shared object:
// it is loaded (and `symbol` looked up) before it goes into an FMU.
void requireLoadable(const std::string& path, const std::string& cc, const char* symbol) {
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = ::dlerror();
    throw Error("the C compiler (" + cc +
                ") reported success, but what it wrote cannot be loaded as a shared object: " +
                std::string(why ? why : "unknown reason"));
  }
  const bool found = symbol == nullptr || ::dlsym(handle, symbol) != nullptr;
  ::dlclose(handle);
  if (!found)
    throw Error("the C compiler (" + cc + ") reported success, but its shared object lacks " + symbol);
}

// Removes the export's own temporary directory whatever happens.
struct TemporaryDirectory {
  std::string path;
  ~TemporaryDirectory() {
    std::error_code ec;
    if (!path.empty()) fs::remove_all(path, ec);
  }
};

// The index among the outputs of the one that is an Integer, or -1.
int integerOutput(const CModel& m) {
  for (std::size_t i = 0; i < m.outputs.size(); ++i)
    if (m.outputs[i].integer) return static_cast<int>(i);
  return -1;
}

// Runs the C compiler (`compiler`, else $CC, else cc) with the common flags and `extra` on
// `sources` in `dir`, writing `output` there. Returns the compiler's name; nothing when none was
// chosen and `cc` cannot be started (a source FMU then). Throws as compileSharedObject.
std::optional<std::string> compileWith(const std::string& dir, const std::vector<std::string>& sources,
                                       const std::string& output, const std::string& compiler,
                                       const std::vector<std::string>& extra, double timeoutSeconds,
                                       Monitor* monitor) {
  // The compiler command: --cc, else $CC, else cc; "ccache gcc" is a command of two words.
  const char* env = std::getenv("CC");
  const bool chosen = !compiler.empty() || (env && *env);
  std::vector<std::string> args;
  std::istringstream words(!compiler.empty() ? compiler : chosen ? std::string(env) : std::string("cc"));
  for (std::string w; words >> w;) args.push_back(w);
  if (args.empty()) throw InputError("the C compiler command is empty");
  const std::string cc = args.front();
  // No contraction into fused multiply-adds: the exported model computes as the engine does.
  for (const char* a : {"-std=c99", "-O3", "-ffp-contract=off", "-shared"}) args.emplace_back(a);
  for (const std::string& a : extra) args.push_back(a);
  args.emplace_back("-o");
  args.push_back(output);
  for (const std::string& s : sources) args.push_back(s);
  args.emplace_back("-lm");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  // posix_spawn, not fork + exec: the caller may have threads (the workbench, Python). The
  // child runs in `dir`, reads /dev/null, writes its messages to a log, with the default
  // signal dispositions and an empty mask (Python ignores SIGPIPE, a worker may block some).
  // Absolute: the child changes into `dir` before it opens the log.
  const std::string log = (fs::absolute(fs::path(dir)) / "compiler.log").string();
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attributes);
  posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &all);
  // Its own process group: a compiler that hangs is stopped with everything it started (cc1, as, ld).
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setflags(&attributes,
                           POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, argv[0], &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (spawned == ENOENT && !chosen) return std::nullopt;  // no cc on the machine: a source FMU
  if (spawned != 0)
    throw Error("cannot start the C compiler \"" + cc + "\": " + std::string(std::strerror(spawned)));
  int status = 0;
  pid_t waited = 0;
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    waited = waitpid(pid, &status, WNOHANG);
    if (waited < 0 && errno == EINTR) continue;
    if (waited != 0) break;
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    if (monitor && !monitor->report(Progress{"compile", 0, 0, {{"seconds", elapsed.count()}}})) {
      kill(-pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      throw Cancelled("cancelled by user; the C compiler (" + cc + ") was stopped");
    }
    if (elapsed.count() > timeoutSeconds) {
      kill(-pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      std::ostringstream limit;
      limit << timeoutSeconds;
      throw Error("the C compiler (" + cc + ") did not finish in " + limit.str() +
                  " s and was stopped; try again with a longer --cc-timeout, or another compiler (--cc)");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (waited != pid) throw Error("lost the C compiler \"" + cc + "\": " + std::string(std::strerror(errno)));
  std::error_code ec;
  const auto size = fs::file_size(fs::path(dir) / output, ec);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || ec || size == 0) {
    std::string message = readAll(log);
    if (message.size() > 2000) message = message.substr(0, 2000) + "...";
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && message.empty())
      message = "the command was not found";
    throw Error("the C compiler (" + cc + ") failed on the generated source: " + message);
  }
  return cc;
}

}  // namespace

std::string fmuModelDescription(const CModel& m, const std::string& guid) {
  std::ostringstream x;
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<fmiModelDescription fmiVersion=\"2.0\" modelName=\"" << markupText(m.identifier) << "\" guid=\""
    << guid << "\"\n  description=\""
    << markupText("reduced model of \"" + m.mechanism + "\" (" + m.methodName + ") under load case \"" +
                  m.loadCase + "\"; fmi2DoStep takes whole steps of " + xmlNumber(m.dt) +
                  " s with the inputs held over the communication step")
    << "\"\n  generationTool=\"mbdrom " << markupText(std::string(kVersion) + " (" + gitCommit() + ")")
    << "\" variableNamingConvention=\"flat\" numberOfEventIndicators=\"0\">\n";
  x << "  <CoSimulation modelIdentifier=\"" << m.identifier
    << "\" needsExecutionTool=\"false\" canHandleVariableCommunicationStepSize=\"true\""
       " canInterpolateInputs=\"false\" maxOutputDerivativeOrder=\"0\" canRunAsynchronuously=\"false\""
       " canBeInstantiatedOnlyOncePerProcess=\"false\" canNotUseMemoryManagementFunctions=\"false\""
       " canGetAndSetFMUstate=\"true\" canSerializeFMUstate=\"true\" "
       "providesDirectionalDerivative=\"false\">\n"
    << "    <SourceFiles>\n      <File name=\"" << m.identifier << ".c\"/>\n      <File name=\"fmi2_"
    << m.identifier << ".c\"/>\n    </SourceFiles>\n  </CoSimulation>\n";
  x << "  <UnitDefinitions>\n"
       "    <Unit name=\"m\"><BaseUnit m=\"1\"/></Unit>\n"
       "    <Unit name=\"m/s\"><BaseUnit m=\"1\" s=\"-1\"/></Unit>\n"
       "    <Unit name=\"N\"><BaseUnit kg=\"1\" m=\"1\" s=\"-2\"/></Unit>\n"
       "    <Unit name=\"N.m\"><BaseUnit kg=\"1\" m=\"2\" s=\"-2\"/></Unit>\n"
       "  </UnitDefinitions>\n";
  x << "  <LogCategories>\n"
       "    <Category name=\"logStatusWarning\" description=\"the run left its training envelope, a "
       "parameter or "
       "an input its trained range, or time the longest training run (once per run)\"/>\n"
       "    <Category name=\"logStatusDiscard\" description=\"why a step was discarded: divergence, a "
       "mechanism that "
       "does not assemble, reduced coordinates out of range, a value that is not a number, the stop outside "
       "the envelope\"/>\n"
       "    <Category name=\"logStatusError\" description=\"calls the FMU refuses\"/>\n"
       "    <Category name=\"logAll\" description=\"every message\"/>\n"
       "  </LogCategories>\n";
  // The longest training run, else a second (files written before it was recorded).
  x << "  <DefaultExperiment startTime=\"0\" stopTime=\""
    << xmlNumber(m.trainedSpan > 0.0 ? m.trainedSpan : 1.0) << "\" stepSize=\"" << xmlNumber(m.dt)
    << "\"/>\n";
  x << "  <ModelVariables>\n";
  unsigned vr = 0;
  auto unit = [](const std::string& u) {
    return u.empty() ? std::string() : " unit=\"" + markupText(u) + "\"";
  };
  auto range = [](const CVariable& v) {
    return v.hasRange() ? " min=\"" + xmlNumber(v.min) + "\" max=\"" + xmlNumber(v.max) + "\""
                        : std::string();
  };
  for (const CVariable& v : m.inputs)
    x << "    <ScalarVariable name=\"" << markupText(v.name) << "\" valueReference=\"" << vr++
      << "\" description=\"" << markupText(v.description)
      << "\" causality=\"input\" variability=\"continuous\">\n      <Real start=\"" << xmlNumber(v.start)
      << "\"" << unit(v.unit) << range(v) << "/>\n    </ScalarVariable>\n";
  for (const CVariable& v : m.outputs)
    x << "    <ScalarVariable name=\"" << markupText(v.name) << "\" valueReference=\"" << vr++
      << "\" description=\"" << markupText(v.description) << "\" causality=\"output\" variability=\""
      << (v.integer ? "discrete" : "continuous") << "\" initial=\"calculated\">\n"
      << (v.integer ? "      <Integer" : "      <Real") << unit(v.unit) << "/>\n    </ScalarVariable>\n";
  for (const CVariable& v : m.parameters)
    x << "    <ScalarVariable name=\"" << markupText(v.name) << "\" valueReference=\"" << vr++
      << "\" description=\"" << markupText(v.description)
      << "\" causality=\"parameter\" variability=\"fixed\" initial=\"exact\">\n"
      << "      <Real start=\"" << xmlNumber(v.start) << "\"" << unit(v.unit)
      << "/>\n    </ScalarVariable>\n";
  x << "    <ScalarVariable name=\"stop_outside_envelope\" valueReference=\"" << vr++
    << "\" description=\"true: fmi2DoStep stops (fmi2Discard) where the run leaves its training envelope "
       "(envelope_distance above 0.1); false: a warning, once\" causality=\"parameter\" "
       "variability=\"fixed\" "
       "initial=\"exact\">\n      <Boolean start=\"false\"/>\n    </ScalarVariable>\n";
  x << "  </ModelVariables>\n  <ModelStructure>\n    <Outputs>\n";
  const std::size_t first = m.inputs.size() + 1;
  // The motion depends on the inputs only through the state (no direct feedthrough); the
  // envelope distance also on the current inputs (the external forces it checks).
  std::string inputs;
  for (std::size_t i = 1; i <= m.inputs.size(); ++i) inputs += (i > 1 ? " " : "") + std::to_string(i);
  for (std::size_t i = 0; i < m.outputs.size(); ++i)
    x << "      <Unknown index=\"" << first + i << "\" dependencies=\""
      << (m.outputs[i].dependsOnInputs ? inputs : std::string()) << "\"/>\n";
  x << "    </Outputs>\n    <InitialUnknowns>\n";
  for (std::size_t i = 0; i < m.outputs.size(); ++i) x << "      <Unknown index=\"" << first + i << "\"/>\n";
  x << "    </InitialUnknowns>\n  </ModelStructure>\n</fmiModelDescription>\n";
  return x.str();
}

bool compileSharedObject(const std::string& dir, const std::vector<std::string>& sources,
                         const std::string& output, const std::string& compiler, bool hideSymbols,
                         double timeoutSeconds, Monitor* monitor) {
  std::vector<std::string> extra{"-fPIC"};
  if (hideSymbols) extra.emplace_back("-fvisibility=hidden");
  const std::optional<std::string> cc =
      compileWith(dir, sources, output, compiler, extra, timeoutSeconds, monitor);
  if (!cc) return false;
  requireLoadable((fs::absolute(fs::path(dir)) / output).string(), *cc,
                  hideSymbols ? "fmi2Instantiate" : nullptr);
  return true;
}

std::string windowsCompiler() {
  if (const char* off = std::getenv("MBDROM_NO_WIN64"); off && *off && std::string(off) != "0") return {};
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  for (std::string d; std::getline(dirs, d, ':');) {
    const fs::path candidate = fs::path(d.empty() ? "." : d) / "x86_64-w64-mingw32-gcc";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return {};
}

void compileWindowsDll(const std::string& dir, const std::vector<std::string>& sources,
                       const std::string& output, const std::string& compiler, double timeoutSeconds,
                       Monitor* monitor) {
  compileWith(dir, sources, output, compiler, {"-static-libgcc"}, timeoutSeconds, monitor);
  // A PE file: "MZ", and at the offset it names "PE\0\0" with the x86-64 machine type.
  const std::string dll = readAll(fs::path(dir) / output);
  const auto u32 = [&](std::size_t at) {
    return at + 4 <= dll.size()
               ? static_cast<std::uint32_t>(static_cast<unsigned char>(dll[at])) |
                     static_cast<std::uint32_t>(static_cast<unsigned char>(dll[at + 1])) << 8 |
                     static_cast<std::uint32_t>(static_cast<unsigned char>(dll[at + 2])) << 16 |
                     static_cast<std::uint32_t>(static_cast<unsigned char>(dll[at + 3])) << 24
               : 0u;
  };
  const std::uint32_t pe = u32(0x3c);
  if (dll.compare(0, 2, "MZ") != 0 || dll.compare(pe, 4, std::string("PE\0\0", 4)) != 0 ||
      (u32(pe + 4) & 0xffffu) != 0x8664u)
    throw Error("the Windows C compiler (" + compiler +
                ") reported success, but what it wrote is not a 64-bit "
                "Windows DLL");
}

FmuExport exportFmu(const ReducedModel& rom, const Model& model, const CExportOptions& options,
                    const std::string& path, const std::string& compiler, double compilerTimeout,
                    Monitor* monitor) {
  // Locked from the start: the build folder next to `path` is a temporary of it.
  WriteLock lock(path);
  FmuExport out;
  out.model = exportCModel(rom, model, options);
  const CModel& m = out.model;
  out.guid = guidOf(m);
  const std::string id = m.identifier;
  const std::string wrapper = fillTemplate(
      kFmi2WrapperTemplate, {{"ID", id},
                             {"GUID", out.guid},
                             {"NP_ALLOC", std::to_string(std::max<std::size_t>(m.parameters.size(), 1))},
                             {"NU_ALLOC", std::to_string(std::max<std::size_t>(m.inputs.size(), 1))},
                             {"INTEGER_OUTPUT", std::to_string(integerOutput(m))},
                             {"SPAN", cNumber(m.trainedSpan)}});
  ZipWriter zip;
  zip.add("modelDescription.xml", fmuModelDescription(m, out.guid));
  zip.add("documentation/index.html", fmuDocumentation(m, out.guid));
  {
    TemporaryDirectory build{makeTemporaryDirectory(path)};
    const fs::path dir(build.path);
    writeAll(dir / (id + ".h"), m.header);
    writeAll(dir / (id + ".c"), m.source);
    writeAll(dir / ("fmi2_" + id + ".c"), wrapper);
    writeAll(dir / "mbdrom_fmi2.h", kFmi2Header);
    // FMI 2.0's platform folder of this machine's (and its compiler's) binaries.
#if defined(__linux__) && defined(__x86_64__)
    const char* const platform = "linux64";
#elif defined(__linux__) && defined(__i386__)
    const char* const platform = "linux32";
#else
    const char* const platform = nullptr;  // no FMI 2.0 platform name: the sources only
#endif
    out.binary =
        platform != nullptr && compileSharedObject(build.path, {id + ".c", "fmi2_" + id + ".c"}, id + ".so",
                                                   compiler, true, compilerTimeout, monitor);
    if (out.binary)
      zip.add(std::string("binaries/") + platform + "/" + id + ".so", readAll(dir / (id + ".so")), true);
    // A Windows DLL too where MinGW-w64 is installed; one that fails to build is said, not fatal.
    if (const std::string mingw = windowsCompiler(); !mingw.empty()) {
      try {
        compileWindowsDll(build.path, {id + ".c", "fmi2_" + id + ".c"}, id + ".dll", mingw, compilerTimeout,
                          monitor);
        zip.add("binaries/win64/" + id + ".dll", readAll(dir / (id + ".dll")), true);
        out.windows = true;
      } catch (const Cancelled&) {
        throw;
      } catch (const Error& e) {
        out.windowsFailure = e.what();
      }
    }
  }
  zip.add("sources/" + id + ".h", m.header);
  zip.add("sources/" + id + ".c", m.source);
  zip.add("sources/fmi2_" + id + ".c", wrapper);
  zip.add("sources/mbdrom_fmi2.h", kFmi2Header);
  if (monitor) monitor->checkpoint();
  writeFileAtomically(path, zip.finish(), std::move(lock));
  out.note =
      out.binary
          ? "binaries/linux64/" + id + ".so built with the system's C compiler" +
                (out.windows ? ", binaries/win64/" + id + ".dll with MinGW-w64" : std::string()) +
                ", sources/ for other platforms" +
                (out.windowsFailure.empty() ? std::string() : " (no Windows DLL: " + out.windowsFailure + ")")
          : "no C compiler was found (" + (compiler.empty() ? std::string("cc or $CC") : compiler) +
                "): the FMU holds the sources only (sources/" + id + ".c, fmi2_" + id +
                ".c); build them with `cc -shared -fPIC -fvisibility=hidden -O2 *.c -lm`";
  return out;
}

CModel exportCSources(const ReducedModel& rom, const Model& model, const CExportOptions& options,
                      const std::string& dir) {
  CModel m = exportCModel(rom, model, options);
  // Only an earlier export is replaced: a file of that name someone else wrote is kept.
  for (const std::string& file : {m.identifier + ".h", m.identifier + ".c"}) {
    const fs::path p = fs::path(dir) / file;
    std::error_code exists;
    if (!fs::exists(fs::symlink_status(p, exists))) continue;
    std::ifstream in(p, std::ios::binary);
    std::string head(1 << 16, '\0');  // the first comment names the mechanism, whose name may be long
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    const bool ours = fs::is_regular_file(fs::symlink_status(p, exists)) &&
                      head.rfind("/* " + m.identifier, 0) == 0 &&
                      (head.find("exported by mbdrom") != std::string::npos ||
                       head.find("Generated by mbdrom") != std::string::npos);
    if (!ours)
      throw FileError(p.string() +
                      ": exists and was not written by an mbdrom export; not replaced (remove it, or "
                      "export into another folder or under another --name)");
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw FileError(dir + ": cannot create the directory: " + ec.message());
  writeFileAtomically((fs::path(dir) / (m.identifier + ".h")).string(), m.header);
  writeFileAtomically((fs::path(dir) / (m.identifier + ".c")).string(), m.source);
  return m;
}

}  // namespace mbdrom
