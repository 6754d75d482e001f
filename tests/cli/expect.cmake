# Runs CMD with ARGS (a ;-list) and checks its exit code and stderr/stdout.
#   -DCMD=... -DARGS=... -DEXPECT_CODE=N [-DEXPECT_ERR=regex] [-DEXPECT_OUT=regex]
string(REPLACE "|" ";" ARGS "${ARGS}")
execute_process(COMMAND ${CMD} ${ARGS}
  RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT code EQUAL EXPECT_CODE)
  message(FATAL_ERROR "exit code ${code}, expected ${EXPECT_CODE}\nstdout:\n${out}\nstderr:\n${err}")
endif()
if(DEFINED EXPECT_ERR AND NOT err MATCHES "${EXPECT_ERR}")
  message(FATAL_ERROR "stderr does not match '${EXPECT_ERR}':\n${err}")
endif()
if(DEFINED EXPECT_OUT AND NOT out MATCHES "${EXPECT_OUT}")
  message(FATAL_ERROR "stdout does not match '${EXPECT_OUT}':\n${out}")
endif()
