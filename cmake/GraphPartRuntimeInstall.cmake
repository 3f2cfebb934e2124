# Installs the runtime (libgpruntime.so, GPRuntime.h), gp-run and the
# package config lib/cmake/GraphPartRuntime/GraphPartRuntimeConfig.cmake
# with the imported targets GraphPart::Runtime and GraphPart::gp-run. Both
# configurations install this; the runtime-only one installs nothing else.
include(GNUInstallDirs)
include(${CMAKE_CURRENT_LIST_DIR}/GraphPartPackage.cmake)

set_target_properties(GPRuntime PROPERTIES EXPORT_NAME Runtime)
set_target_properties(GPRuntime gp-run PROPERTIES
  INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")
install(TARGETS GPRuntime gp-run EXPORT GraphPartRuntimeTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/GraphPart/Runtime/GPRuntime.h
  ${PROJECT_SOURCE_DIR}/include/GraphPart/Runtime/GPRuntimeBase.h
  ${PROJECT_SOURCE_DIR}/include/GraphPart/Runtime/GPRuntimeExtern.h
  ${PROJECT_SOURCE_DIR}/include/GraphPart/Runtime/GPRuntimeHost.h
  ${PROJECT_SOURCE_DIR}/include/GraphPart/Runtime/GPRuntimeLowered.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/GraphPart/Runtime)

graphpart_install_package(GraphPartRuntime GraphPartRuntimeTargets)
