# dtsim_add_library(NAME SOURCES ... DEPS ...): one library per folder, includes from the repository root.
function(dtsim_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
endfunction()

# dtsim_add_test(NAME SOURCES ... DEPS ... [LABELS ...]): a GoogleTest binary; every test runs in its own
# process (SimGrid allows one engine per process).
function(dtsim_add_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main GTest::gmock)
  target_compile_definitions(${name} PRIVATE DTSIM_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  # A test's own code is GoogleTest's macros and calls into the libraries (optimised as built): -O1 compiles it in
  # about two thirds of -O3's time (plan_test.cpp 23.7 -> 16.1 s) and runs its assertions as fast; the libraries
  # under test keep the build type's level. The last -O on the command line wins.
  target_compile_options(${name} PRIVATE $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CONFIG:Release>>:-O1>)
  if(ARG_LABELS)
    gtest_discover_tests(${name} PROPERTIES LABELS "${ARG_LABELS}" DISCOVERY_TIMEOUT 60)
  else()
    gtest_discover_tests(${name} DISCOVERY_TIMEOUT 60)
  endif()
endfunction()
