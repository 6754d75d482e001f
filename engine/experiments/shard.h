#pragma once
/// @file
/// Sharding a sweep over processes without linking MPI: the I-th of N
/// deterministic parts, from the command line or from the variables a Slurm
/// job array or Open MPI's mpirun sets in each process.
///
/// Run k of a design (0-based, in design order) belongs to part k mod N, so the
/// parts interleave and a design ordered by cost spreads it evenly.

#include <functional>
#include <string>
#include <vector>

namespace mbdrom {

/// One part of a sweep: index in [0, count).
struct Shard {
  int index = 0;
  int count = 1;
  std::string source;  ///< where it came from, for messages ("--shard 2/4", "Slurm array", "Open MPI")
};

/// "I/N" with 1 <= I <= N (1-based, as a user counts). Throws InputError.
Shard parseShard(const std::string& text);

/// The part the environment names, through `getenv` (std::getenv in a program):
/// - a Slurm job array: index (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN) /
///   SLURM_ARRAY_TASK_STEP (step 1 when unset), count SLURM_ARRAY_TASK_COUNT; an
///   array whose ids are not that regular range (a list such as 1,4,9, or a
///   count that does not match MIN, MAX and STEP) is refused with InputError;
/// - Open MPI's mpirun: OMPI_COMM_WORLD_RANK of OMPI_COMM_WORLD_SIZE; else a PMI
///   launcher's (MPICH, Intel MPI): PMI_RANK of PMI_SIZE;
/// - both (mpirun inside an array task): the array task's part is split among the
///   ranks: index = array index * size + rank, count = array count * size.
/// Neither: the whole sweep (0 of 1, source empty). Malformed values throw InputError naming the variable.
Shard shardFromEnvironment(const std::function<const char*(const char*)>& getenv);

/// The design rows (0-based) of `shard` among `runs` rows.
std::vector<int> shardRows(int runs, const Shard& shard);

}  // namespace mbdrom
