# docs/POLICIES.md's table is the catalog's (`ptxcts-ref policies --markdown`): the test fails when either side
# changes without the other. Regenerate the table with that command.
execute_process(COMMAND ${TOOL} policies --markdown OUTPUT_VARIABLE table RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ptxcts-ref policies --markdown exited ${rc}")
endif()
file(READ ${DOC} doc)
string(FIND "${doc}" "${table}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${DOC}: its policy table is not the catalog's; replace it with the output of "
                      "'ptxcts-ref policies --markdown'")
endif()
