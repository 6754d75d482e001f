# Exports of trained models as C and as FMUs (engine/export).
target_sources(mbdrom_engine PRIVATE
  export/c_model.cpp
  export/c_network.cpp
  export/c_combinations.cpp
  export/c_kinematics.cpp
  export/c_forces.cpp
  export/fmu_documentation.cpp
  export/fmu_export.cpp
  export/zip_writer.cpp
)
# The C templates of the generated sources, compiled in as string constants
# (the engine carries them: an installed mbdrom needs no template files).
set(_mbdrom_c_templates
  "kCModelHeaderTemplate:model.h.in"
  "kCKernelsTemplate:kernels.c.in"
  "kCNetworkTemplate:network.c.in"
  "kCForcesTemplate:forces.c.in"
  "kCConstraintsTemplate:constraints.c.in"
  "kCKinematicTableTemplate:kinematic_table.c.in"
  "kCKinematicGridTemplate:kinematic_grid.c.in"
  "kCIndependentTemplate:independent.c.in"
  "kCRuntimeFunctionsTemplate:runtime_functions.c.in"
  "kCRuntimeTemplate:runtime_api.c.in"
  "kFmi2WrapperTemplate:fmi2.c.in"
  "kFmi2Header:mbdrom_fmi2.h")
set(_mbdrom_c_templates_cpp "// Generated from engine/export/c/ by engine/export/sources.cmake.\n#include \"engine/export/c_templates.h\"\n\nnamespace mbdrom {\n")
foreach(_entry IN LISTS _mbdrom_c_templates)
  string(REPLACE ":" ";" _parts "${_entry}")
  list(GET _parts 0 _name)
  list(GET _parts 1 _file)
  set(_path "${CMAKE_CURRENT_SOURCE_DIR}/export/c/${_file}")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_path}")
  file(READ "${_path}" _text)
  string(APPEND _mbdrom_c_templates_cpp "const char* const ${_name} = R\"mbdrom_c(${_text})mbdrom_c\";\n")
endforeach()
string(APPEND _mbdrom_c_templates_cpp "}  // namespace mbdrom\n")
# Written as is (the templates' @KEY@ markers are not CMake's), and copied only when
# changed so that a configure run does not recompile it.
file(WRITE "${PROJECT_BINARY_DIR}/generated/engine/export/c_templates.cpp.new" "${_mbdrom_c_templates_cpp}")
configure_file("${PROJECT_BINARY_DIR}/generated/engine/export/c_templates.cpp.new"
  "${PROJECT_BINARY_DIR}/generated/engine/export/c_templates.cpp" COPYONLY)
target_sources(mbdrom_engine PRIVATE "${PROJECT_BINARY_DIR}/generated/engine/export/c_templates.cpp")
