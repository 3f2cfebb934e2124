# graphpart_install_package(<PackageName> <ExportSet>) installs the export set
# <ExportSet> with the namespace GraphPart:: and the package config
# <PackageName>Config.cmake, configured from cmake/<PackageName>Config.cmake.in,
# into lib/cmake/<PackageName>; the configs may use
# @PACKAGE_CMAKE_INSTALL_{BINDIR,LIBDIR,INCLUDEDIR}@ for installed paths. GraphPartInstall.cmake and
# GraphPartRuntimeInstall.cmake both include this file.
include_guard(GLOBAL)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

function(graphpart_install_package package export_set)
  set(cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/${package})
  install(EXPORT ${export_set} NAMESPACE GraphPart::
    DESTINATION ${cmake_dir})
  configure_package_config_file(
    ${PROJECT_SOURCE_DIR}/cmake/${package}Config.cmake.in
    ${PROJECT_BINARY_DIR}/${package}Config.cmake
    INSTALL_DESTINATION ${cmake_dir}
    PATH_VARS CMAKE_INSTALL_BINDIR CMAKE_INSTALL_LIBDIR
              CMAKE_INSTALL_INCLUDEDIR)
  install(FILES ${PROJECT_BINARY_DIR}/${package}Config.cmake
    DESTINATION ${cmake_dir})
endfunction()
