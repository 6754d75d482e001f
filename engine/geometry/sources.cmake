# Display geometry: STL and OBJ readers, decimation, shapes and body poses (engine/geometry).
target_sources(mbdrom_engine PRIVATE
  geometry/body_pose.cpp
  geometry/mesh_file.cpp
  geometry/shape_mesh.cpp
  geometry/triangle_mesh.cpp
)
