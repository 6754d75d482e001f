# Trajectories and datasets (engine/data).
target_sources(mbdrom_engine PRIVATE
  data/trajectory_csv.cpp
  data/trajectory_table_sink.cpp
)
target_sources(mbdrom_engine PRIVATE data/dataset.cpp)
target_sources(mbdrom_engine PRIVATE data/paraview_export.cpp)
