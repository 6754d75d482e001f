# Natural-coordinate mechanism model (engine/model).
target_sources(mbdrom_engine PRIVATE
  model/body_shape.cpp
  model/constraints.cpp
  model/forces.cpp
  model/model.cpp
  model/joint_types.cpp
  model/force_element_types.cpp
  model/model_file.cpp
  model/time_function.cpp
  model/hardpoint_table.cpp
  model/mirror.cpp
  model/spec_edit.cpp
  model/spec_build.cpp
)
