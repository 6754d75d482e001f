#include "engine/experiments/shard.h"

#include "engine/core/error.h"

#include <charconv>
#include <optional>
#include <tuple>

namespace mbdrom {

namespace {

std::optional<long long> integer(const std::string& s) {
  long long x = 0;
  const auto res = std::from_chars(s.data(), s.data() + s.size(), x);
  if (s.empty() || res.ec != std::errc() || res.ptr != s.data() + s.size()) return std::nullopt;
  return x;
}

// A variable's integer value, nullopt when unset; InputError when malformed.
std::optional<long long> variable(const std::function<const char*(const char*)>& getenv, const char* name) {
  const char* value = getenv(name);
  if (!value || !*value) return std::nullopt;
  const std::optional<long long> x = integer(value);
  if (!x || *x < 0 || *x > 1000000000)
    throw InputError(std::string(name) + " is \"" + value + "\", not a non-negative integer");
  return x;
}

}  // namespace

Shard parseShard(const std::string& text) {
  const auto slash = text.find('/');
  const std::optional<long long> i = slash == std::string::npos ? std::nullopt
                                                                : integer(text.substr(0, slash)),
                                 n = slash == std::string::npos ? std::nullopt
                                                                : integer(text.substr(slash + 1));
  if (!i || !n || *n < 1 || *i < 1 || *i > *n || *n > 1000000)
    throw InputError("--shard takes I/N with 1 <= I <= N (the I-th of N parts), got \"" + text + "\"");
  return {static_cast<int>(*i - 1), static_cast<int>(*n), "--shard " + text};
}

Shard shardFromEnvironment(const std::function<const char*(const char*)>& getenv) {
  std::optional<Shard> slurm, mpi;
  if (const auto id = variable(getenv, "SLURM_ARRAY_TASK_ID")) {
    const auto min = variable(getenv, "SLURM_ARRAY_TASK_MIN"), max = variable(getenv, "SLURM_ARRAY_TASK_MAX"),
               count = variable(getenv, "SLURM_ARRAY_TASK_COUNT"),
               stepValue = variable(getenv, "SLURM_ARRAY_TASK_STEP");
    if (!min || !count)
      throw InputError(
          "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_MIN or SLURM_ARRAY_TASK_COUNT is not");
    const long long step = stepValue ? *stepValue : 1;
    if (step < 1) throw InputError("SLURM_ARRAY_TASK_STEP is 0");
    const long long last = *min + (*count - 1) * step;
    if (*count < 1) throw InputError("SLURM_ARRAY_TASK_COUNT is 0");
    if (*id < *min || (*id - *min) % step != 0 || (max && *max != last) || *id > last)
      throw InputError("the Slurm job array is not a regular range (task " + std::to_string(*id) + ", min " +
                       std::to_string(*min) + ", max " + (max ? std::to_string(*max) : std::string("unset")) +
                       ", step " + std::to_string(step) + ", count " + std::to_string(*count) +
                       "): a list of ids cannot be mapped to parts; submit --array=0-" +
                       std::to_string(*count - 1) + " or give --shard I/N");
    slurm = Shard{static_cast<int>((*id - *min) / step), static_cast<int>(*count),
                  "Slurm array task " + std::to_string(*id)};
  }
  // Open MPI's mpirun, else a PMI launcher's (MPICH's and Intel MPI's mpiexec).
  for (const auto& [rankName, sizeName, who] :
       {std::tuple{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "Open MPI"},
        std::tuple{"PMI_RANK", "PMI_SIZE", "MPI (PMI)"}}) {
    const auto rank = variable(getenv, rankName);
    if (!rank) continue;
    const auto size = variable(getenv, sizeName);
    if (!size || *size < 1 || *rank >= *size)
      throw InputError(std::string(rankName) + " is " + std::to_string(*rank) + " but " + sizeName + " is " +
                       (size ? std::to_string(*size) : std::string("unset")));
    mpi = Shard{static_cast<int>(*rank), static_cast<int>(*size),
                std::string(who) + " rank " + std::to_string(*rank)};
    break;
  }
  if (slurm && mpi) {
    const long long count = static_cast<long long>(slurm->count) * mpi->count;
    if (count > 1000000) throw InputError("Slurm array x Open MPI: more than 1000000 parts");
    return {slurm->index * mpi->count + mpi->index, static_cast<int>(count),
            slurm->source + ", " + mpi->source};
  }
  if (slurm) return *slurm;
  if (mpi) return *mpi;
  return {};
}

std::vector<int> shardRows(int runs, const Shard& shard) {
  std::vector<int> rows;
  for (int k = shard.index; k < runs; k += shard.count) rows.push_back(k);
  return rows;
}

}  // namespace mbdrom
