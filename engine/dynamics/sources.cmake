# Assembly, mobility, statics, modes, integrator (engine/dynamics).
target_sources(mbdrom_engine PRIVATE
  dynamics/assembly.cpp
  dynamics/constraint_hessian.cpp
  dynamics/mobility.cpp
  dynamics/modes.cpp
  dynamics/statics.cpp
)
