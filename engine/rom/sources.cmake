# Reduced models (engine/rom).
target_sources(mbdrom_engine PRIVATE
  rom/reduced_model.cpp
  rom/reduced_run.cpp
  rom/method_registry.cpp
  rom/method_details.cpp
  rom/builtin_methods.cpp
  rom/pod_model.cpp
  rom/ae_model.cpp
  rom/compare.cpp
  rom/model_comparison.cpp
  rom/kmeans.cpp
  rom/node_cases.cpp
  rom/node_model.cpp
  rom/pca_model.cpp
  rom/rom_support.cpp
  rom/savitzky_golay.cpp
  rom/sindy.cpp
  rom/sindy_model.cpp
)
