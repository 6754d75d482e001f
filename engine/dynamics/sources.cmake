# Assembly, mobility, statics, modes, integrator (engine/dynamics).
target_sources(mbdrom_engine PRIVATE
  dynamics/assembly.cpp
  dynamics/constraint_hessian.cpp
  dynamics/constraint_operators.cpp
  dynamics/dormand_prince.cpp
  dynamics/initial_state.cpp
  dynamics/integrator.cpp
  dynamics/integrator_choice.cpp
  dynamics/integrator_method.cpp
  dynamics/measures.cpp
  dynamics/mobility.cpp
  dynamics/modes.cpp
  dynamics/reactions.cpp
  dynamics/run_options.cpp
  dynamics/scales.cpp
  dynamics/simulation.cpp
  dynamics/statics.cpp
  dynamics/step_support.cpp
  dynamics/trajectory.cpp
)
