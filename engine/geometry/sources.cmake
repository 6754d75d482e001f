# Meshes for display shapes: STL and OBJ readers, decimation (engine/geometry).
target_sources(mbdrom_engine PRIVATE
  geometry/mesh_file.cpp
  geometry/triangle_mesh.cpp
)
