# Installs the compiler side: headers (with the generated .inc files), the
# libraries as imported targets GraphPart::GPDialect ... GraphPart::GPPipelines,
# gp-opt, gp-compile (and its gp-codegen), the plugin, and lib/cmake/GraphPart/GraphPartConfig.cmake
# (which finds MLIR and GraphPartRuntime too).
include(GNUInstallDirs)
include(${CMAKE_CURRENT_LIST_DIR}/GraphPartPackage.cmake)

set(GP_EXPORTED_LIBRARIES GPDialect GPAnalysis GPTransforms GPImport
    GPConversion GPRuntimeConversion GPPipelines)
foreach(library ${GP_EXPORTED_LIBRARIES})
  target_include_directories(${library} INTERFACE
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
endforeach()
install(TARGETS ${GP_EXPORTED_LIBRARIES} EXPORT GraphPartTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/GraphPart
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.td")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/GraphPart
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.inc" PATTERN "*.md" EXCLUDE)

set_target_properties(gp-opt gp-codegen PROPERTIES
  INSTALL_RPATH "${LLVM_LIBRARY_DIR}")
install(TARGETS gp-opt gp-codegen RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(PROGRAMS ${PROJECT_SOURCE_DIR}/tools/gp-compile/gp-compile
  DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS GraphPartPlugin LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})

graphpart_install_package(GraphPart GraphPartTargets)
