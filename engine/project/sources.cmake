# Projects: a mechanism with its runs, datasets and trained models (engine/project).
target_sources(mbdrom_engine PRIVATE project/project.cpp project/project_check.cpp)
