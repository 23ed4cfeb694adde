# -DIOK_SANITIZE=ON: everything (library objects, programs, unit tests) is
# built with AddressSanitizer and UndefinedBehaviorSanitizer.  `scripts/iok
# test` builds the unit tests this way in a second build directory
# (build-asan) and runs them there; any report fails the test.
#
# UBSan does not recover (-fno-sanitize-recover), so undefined behaviour ends
# the test with a non-zero status instead of a line nobody reads.  The
# run-time options and the leak suppressions for the MPI stack (leaks inside
# the libraries, not ours) are compiled into the unit test program:
# tests/unit/sanitizer_defaults.cpp.
option(IOK_SANITIZE "Build with AddressSanitizer + UndefinedBehaviorSanitizer (debugging, CI)" OFF)
if(IOK_SANITIZE)
  set(_iok_san -fsanitize=address,undefined -fno-sanitize-recover=undefined)
  add_compile_options(${_iok_san} -fno-omit-frame-pointer -g)
  add_link_options(${_iok_san})
  message(STATUS "IOK_SANITIZE: AddressSanitizer + UndefinedBehaviorSanitizer")
endif()
