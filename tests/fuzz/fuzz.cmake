# tests/fuzz/fuzz.cmake - the libFuzzer harnesses (one per reader, tests/fuzz/fuzz_*.c,
# seeds in tests/fuzz/corpus/<name>/) and the ctest entries that use them.
#
# With XIOTOP_FUZZ (a clang build dir, see tests/fuzz/sanitize_build.sh) each harness is
# an executable linked with -fsanitize=fuzzer. In the normal build three tests drive a
# second build dir, <build>/sanitize, configured with clang, XIOTOP_SANITIZE and (when
# clang's libFuzzer links) XIOTOP_FUZZ:
#   sanitize_build  configures and builds it (the other two need it)
#   sanitize_unit   the unit suite once under ASan + UBSan + LeakSanitizer (two at a time)
#   fuzz_smoke      each harness for a few seconds on its committed corpus
file(GLOB FUZZ_HARNESSES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz_*.c)
if(XIOTOP_FUZZ)
  foreach(src ${FUZZ_HARNESSES})
    get_filename_component(name ${src} NAME_WE)
    add_executable(${name} ${src})
    target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR}/tests)
    target_link_libraries(${name} PRIVATE xiotop_ui xiotop_explain xiotop_import)
    target_link_options(${name} PRIVATE -fsanitize=fuzzer)
  endforeach()
  add_custom_target(fuzzers)
  foreach(src ${FUZZ_HARNESSES})
    get_filename_component(name ${src} NAME_WE)
    add_dependencies(fuzzers ${name})
  endforeach()
elseif(NOT XIOTOP_SANITIZE)
  set(SANITIZE_DIR ${CMAKE_BINARY_DIR}/sanitize)
  # niced: under make test's ctest -j2 they run beside a live test (CMakeLists.txt)
  add_test(NAME sanitize_build COMMAND nice -n 19 bash ${CMAKE_SOURCE_DIR}/tests/fuzz/sanitize_build.sh
    ${CMAKE_SOURCE_DIR} ${SANITIZE_DIR})
  set_tests_properties(sanitize_build PROPERTIES FIXTURES_SETUP sanitize_dir
    SKIP_RETURN_CODE 77 TIMEOUT 900 COST 1000)
  add_test(NAME sanitize_unit COMMAND nice -n 19 bash ${CMAKE_SOURCE_DIR}/tests/fuzz/sanitize_unit.sh
    ${SANITIZE_DIR})
  set_tests_properties(sanitize_unit PROPERTIES FIXTURES_REQUIRED sanitize_dir
    SKIP_RETURN_CODE 77 TIMEOUT 600)
  add_test(NAME fuzz_smoke COMMAND nice -n 19 bash ${CMAKE_SOURCE_DIR}/tests/fuzz/run.sh ${SANITIZE_DIR}
    ${CMAKE_SOURCE_DIR}/tests/fuzz/corpus 8)
  set_tests_properties(fuzz_smoke PROPERTIES FIXTURES_REQUIRED sanitize_dir
    SKIP_RETURN_CODE 77 TIMEOUT 300)
endif()
