// Parts of a sweep from --shard, a Slurm job array or Open MPI's mpirun.

#include "engine/experiments/shard.h"
#include "engine/core/error.h"

#include <catch2/catch.hpp>

#include <map>
#include <set>

using namespace mbdrom;

namespace {

std::function<const char*(const char*)> environment(const std::map<std::string, std::string>& vars) {
  return [vars](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

}  // namespace

TEST_CASE("the parts of a sweep cover every run exactly once", "[experiments]") {
  for (int runs : {1, 7, 64})
    for (int count : {1, 2, 3, 4, 9}) {
      std::multiset<int> seen;
      for (int index = 0; index < count; ++index)
        for (int row : shardRows(runs, {index, count, ""})) seen.insert(row);
      REQUIRE(seen.size() == static_cast<std::size_t>(runs));
      for (int row = 0; row < runs; ++row) CHECK(seen.count(row) == 1u);
    }
}

TEST_CASE("a part given as I/N counts from 1 and parts that do not exist are refused", "[experiments]") {
  const Shard s = parseShard("2/4");
  CHECK(s.index == 1);
  CHECK(s.count == 4);
  for (const char* bad : {"0/4", "5/4", "2", "2/0", "a/b", "-1/3", "1/2/3", ""})
    CHECK_THROWS_WITH(parseShard(bad), Catch::Contains("I/N"));
}

TEST_CASE("a Slurm array task is its part: (id - min) / step of count", "[experiments]") {
  Shard s = shardFromEnvironment(environment({{"SLURM_ARRAY_TASK_ID", "12"},
                                              {"SLURM_ARRAY_TASK_MIN", "10"},
                                              {"SLURM_ARRAY_TASK_MAX", "13"},
                                              {"SLURM_ARRAY_TASK_COUNT", "4"},
                                              {"SLURM_ARRAY_TASK_STEP", "1"}}));
  CHECK(s.index == 2);
  CHECK(s.count == 4);
  s = shardFromEnvironment(environment({{"SLURM_ARRAY_TASK_ID", "6"},
                                        {"SLURM_ARRAY_TASK_MIN", "0"},
                                        {"SLURM_ARRAY_TASK_MAX", "6"},
                                        {"SLURM_ARRAY_TASK_COUNT", "4"},
                                        {"SLURM_ARRAY_TASK_STEP", "2"}}));  // --array=0-7:2
  CHECK(s.index == 3);
  CHECK(s.count == 4);
  // --array=1,4,9: min 1, max 9, count 3, no regular step.
  CHECK_THROWS_WITH(shardFromEnvironment(environment({{"SLURM_ARRAY_TASK_ID", "4"},
                                                      {"SLURM_ARRAY_TASK_MIN", "1"},
                                                      {"SLURM_ARRAY_TASK_MAX", "9"},
                                                      {"SLURM_ARRAY_TASK_COUNT", "3"},
                                                      {"SLURM_ARRAY_TASK_STEP", "1"}})),
                    Catch::Contains("not a regular range"));
  CHECK_THROWS_WITH(shardFromEnvironment(environment({{"SLURM_ARRAY_TASK_ID", "x"}})),
                    Catch::Contains("SLURM_ARRAY_TASK_ID is \"x\""));
  CHECK_THROWS_WITH(shardFromEnvironment(environment({{"SLURM_ARRAY_TASK_ID", "3"}})),
                    Catch::Contains("SLURM_ARRAY_TASK_MIN"));
}

TEST_CASE("an Open MPI rank is its part, and mpirun inside an array task splits the task's part",
          "[experiments]") {
  Shard s = shardFromEnvironment(environment({{"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_SIZE", "4"}}));
  CHECK(s.index == 3);
  CHECK(s.count == 4);
  s = shardFromEnvironment(environment({{"OMPI_COMM_WORLD_RANK", "1"},
                                        {"OMPI_COMM_WORLD_SIZE", "2"},
                                        {"SLURM_ARRAY_TASK_ID", "2"},
                                        {"SLURM_ARRAY_TASK_MIN", "0"},
                                        {"SLURM_ARRAY_TASK_COUNT", "3"}}));
  CHECK(s.index == 5);
  CHECK(s.count == 6);
  CHECK_THROWS_WITH(
      shardFromEnvironment(environment({{"OMPI_COMM_WORLD_RANK", "4"}, {"OMPI_COMM_WORLD_SIZE", "4"}})),
      Catch::Contains("OMPI_COMM_WORLD_SIZE is 4"));
  s = shardFromEnvironment(environment({{"PMI_RANK", "2"}, {"PMI_SIZE", "3"}}));  // MPICH's mpiexec
  CHECK(s.index == 2);
  CHECK(s.count == 3);
  s = shardFromEnvironment(environment({}));
  CHECK(s.index == 0);
  CHECK(s.count == 1);
}
