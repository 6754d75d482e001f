# Reduced models (engine/rom): the framework here, one folder per method.
target_sources(mbdrom_engine PRIVATE
  rom/reduced_model.cpp
  rom/reduced_run.cpp
  rom/held_input_run.cpp
  rom/method_registry.cpp
  rom/method_details.cpp
  rom/builtin_methods.cpp
  rom/compare.cpp
  rom/model_comparison.cpp
  rom/kinematic_table.cpp
  rom/kinematic_grid.cpp
  rom/chart_kinematics.cpp
  rom/linear_row_elimination.cpp
  rom/linear_step.cpp
  rom/rollout_check.cpp
  rom/tracked_points.cpp
  rom/confirmation_check.cpp
  rom/rom_support.cpp
  rom/speed_check.cpp
  rom/step_probe.cpp
  rom/probe_run.cpp
  rom/frequency_scan.cpp
  rom/neighbour_envelope.cpp
  rom/load_band.cpp
  rom/training_envelope.cpp
  rom/training_finish.cpp
  rom/training_retrace.cpp
  rom/equation_residual.cpp
  rom/constraint_tangent.cpp
  rom/unresolved_modes.cpp
)
# A method is a folder of its own (engine/rom/<method>/, registered in
# builtin_methods.cpp); its sources join without a line here.
file(GLOB MBDROM_ROM_METHOD_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*/*.cpp)
target_sources(mbdrom_engine PRIVATE ${MBDROM_ROM_METHOD_SOURCES})
