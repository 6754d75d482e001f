# Writes the build's git commit into its generated source (included at configure time, and run
# by `cmake -P` at every build): only when the commit changed, so that an unchanged commit
# recompiles nothing. Variables: SOURCE_DIR (the clone), TEMPLATE (git_commit.cpp.in), OUTPUT
# (the generated source).
execute_process(COMMAND git rev-parse --short HEAD
  WORKING_DIRECTORY ${SOURCE_DIR}
  OUTPUT_VARIABLE MBDROM_GIT_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT MBDROM_GIT_COMMIT)
  set(MBDROM_GIT_COMMIT "unknown")
endif()
configure_file(${TEMPLATE} ${OUTPUT} @ONLY)
