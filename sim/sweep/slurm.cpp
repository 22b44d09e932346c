#include "sim/sweep/slurm.hpp"

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "sim/core/shell_quote.hpp"
#include "sim/core/atomic_file.hpp"

namespace dtsim::sweep {
namespace fs = std::filesystem;
std::string write_sbatch_script(const JobArray& array, const SlurmOptions& options) {
  const std::string out = fs::absolute(array.output_dir).lexically_normal().string();
  const std::string path = out + "/" + array.script_name;
  std::string command;
  for (const std::string& word : array.command) command += core::shell_quote(word) + " ";
  fs::create_directories(out);
  core::write_atomically(path, [&](std::ostream& s) {
    fmt::print(s, "#!/bin/bash\n");
    fmt::print(s, "# {}\n", array.description);
    fmt::print(s, "#SBATCH --job-name={}\n", array.job_name);
    fmt::print(s, "#SBATCH --array=0-{}\n", options.shards - 1);
    fmt::print(s, "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task={}\n", options.jobs);
    fmt::print(s, "#SBATCH --output={}/slurm-%A_%a.log\n", out);
    fmt::print(s, "cd {}\n", core::shell_quote(fs::current_path().string()));
    fmt::print(s, "exec {}--shard \"$SLURM_ARRAY_TASK_ID\" --shards {} -j {}\n", command, options.shards, options.jobs);
  });
  fs::permissions(path, fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add);
  return path;
}

std::string submit_sbatch(const std::string& script, bool wait) {
  const std::string command = "sbatch --parsable" + std::string(wait ? " --wait " : " ") + core::shell_quote(script) + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot run sbatch");
  std::string output;
  char buffer[512];
  while (fgets(buffer, sizeof buffer, pipe)) output += buffer;
  const int status = pclose(pipe);
  while (!output.empty() && (output.back() == '\n' || output.back() == ' ')) output.pop_back();
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("sbatch failed: " + (output.empty() ? std::string("no output") : output));
  return output.substr(0, output.find(';'));
}

}  // namespace dtsim::sweep
