# Designs of experiments, sharded sweeps on disk and their merge (engine/experiments).
target_sources(mbdrom_engine PRIVATE
  experiments/design_parameter.cpp
  experiments/experiment_design.cpp
  experiments/experiment_run.cpp
  experiments/shard.cpp
  experiments/sweep_directory.cpp
)
