# Writes OUT, a C++ file defining iok::git_revision() as `git describe
# --always --dirty` of SRC, and leaves it untouched when the revision has not
# changed.  Run at every build (src/CMakeLists.txt, target iok_revision), not
# at configure: the revision in --version and the manifests is the one built,
# and no compile definition carries it, so a commit recompiles one file, not
# every file (and ccache keeps hitting across commits).
execute_process(COMMAND git -C "${SRC}" describe --always --dirty
  OUTPUT_VARIABLE rev OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT rev)
  set(rev "unknown")
endif()
set(text "// Generated at build time by cmake/IokRevision.cmake; not committed.\n#include \"core/build_info.hpp\"\n\nconst char* iok::git_revision() { return \"${rev}\"; }\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
  if(old STREQUAL text)
    return()
  endif()
endif()
file(WRITE "${OUT}" "${text}")
