# Neural networks on Eigen (engine/nn).
target_sources(mbdrom_engine PRIVATE
  nn/activation.cpp
  nn/dense_kernels.cpp
  nn/mlp.cpp
  nn/optimizer.cpp
  nn/trainer.cpp
)
