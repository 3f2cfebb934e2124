# GraphPart's layering (docs/Architecture.md), checked when CMake configures:
#
#   GPDialect <- GPAnalysis <- GPTransforms <- conversions <- GPPipelines
#   GPRuntime: nothing of ours, and no LLVM/MLIR
#
# gp_check_layering(TARGET MAY_LINK lib...) fails the configuration when
# TARGET links a GraphPart library (a target named GP* or GraphPart*) that is
# not listed, so a dependency that breaks the layering cannot be added
# quietly. NO_LLVM also refuses any LLVM or MLIR library.
function(gp_check_layering target)
  cmake_parse_arguments(ARG "NO_LLVM" "" "MAY_LINK" ${ARGN})
  get_target_property(links ${target} LINK_LIBRARIES)
  if(NOT links)
    return()
  endif()
  foreach(link IN LISTS links)
    # Generator expressions ($<LINK_ONLY:x>) wrap the name.
    string(REGEX REPLACE "^\\$<[A-Z_]+:(.*)>$" "\\1" name "${link}")
    if(name MATCHES "^(GP|GraphPart)" AND NOT name IN_LIST ARG_MAY_LINK)
      message(FATAL_ERROR
        "layering: ${target} must not link ${name} (it may link: "
        "${ARG_MAY_LINK}); see docs/Architecture.md")
    endif()
    if(ARG_NO_LLVM AND name MATCHES "(^|/|lib)(LLVM|MLIR)")
      message(FATAL_ERROR
        "layering: ${target} must not depend on LLVM or MLIR (links "
        "${name}); see docs/Architecture.md")
    endif()
  endforeach()
endfunction()
