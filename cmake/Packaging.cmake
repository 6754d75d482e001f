# Installation layout and the Debian package (cpack -G DEB).
#
#   <prefix>/bin/mbdrom, mbdrom-cli                  (install rules in app/, app/cli/)
#   <prefix>/share/mbdrom/examples/*.json            found by the workbench next to its binary
#   <prefix>/share/applications/org.mbdrom.mbdrom.desktop
#   <prefix>/share/icons/hicolor/scalable/apps/org.mbdrom.mbdrom.svg
#   <prefix>/share/metainfo/org.mbdrom.mbdrom.metainfo.xml
#   <prefix>/share/mime/packages/org.mbdrom.mbdrom.xml  project and model file types
#   <prefix>/share/man/man1/mbdrom-cli.1.gz            (written from its help, app/cli/)
#   <prefix>/share/doc/mbdrom/                       copyright, README, user guide
#
# Build the package from a build directory with `cpack -G DEB`; the package's
# runtime dependencies are read off the binaries by dpkg-shlibdeps.

include(GNUInstallDirs)

set(MBDROM_APP_ID org.mbdrom.mbdrom)
set(_pkg ${PROJECT_SOURCE_DIR}/resources/packaging)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/resources/examples/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/mbdrom/examples
        FILES_MATCHING PATTERN "*.json")
if(MBDROM_BUILD_GUI)
  install(FILES ${_pkg}/${MBDROM_APP_ID}.desktop DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
  install(FILES ${_pkg}/${MBDROM_APP_ID}.svg DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
  install(FILES ${_pkg}/${MBDROM_APP_ID}.metainfo.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
  install(FILES ${_pkg}/${MBDROM_APP_ID}.mime.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages
          RENAME ${MBDROM_APP_ID}.xml)
endif()
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR} RENAME copyright)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/docs/user-guide.md
              ${PROJECT_SOURCE_DIR}/docs/model-format.md ${PROJECT_SOURCE_DIR}/docs/examples.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
# The guide's screenshots, so Help ▸ User Guide shows them from the installed copy.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/images/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/images FILES_MATCHING PATTERN "*.png")

set(CPACK_PACKAGE_NAME mbdrom)
set(CPACK_PACKAGE_VENDOR "The mbdrom authors")
set(CPACK_PACKAGE_CONTACT "The mbdrom authors <mbdrom@localhost>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "workbench for reduced-order models of multibody mechanisms")
# One string (CONCAT), not a list: a list's separators are semicolons, and removing them
# took the text's own semicolon too.
string(CONCAT CPACK_PACKAGE_DESCRIPTION
    "Build a mechanism in natural coordinates, check its mobility, run reference\n"
    "simulations and train reduced-order models (global POD, auto-encoder minimal\n"
    "coordinates, local PCA, neural ODE, SINDy) with live progress; watch full and\n"
    "reduced motion in 3D and export plots, data and models (FMU, C). Includes\n"
    "mbdrom-cli for scripts and example mechanisms in /usr/share/mbdrom/examples.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_STRIP_FILES ON)
set(CPACK_SOURCE_GENERATOR "")

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # mbdrom_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # libqt6*, libvtk9.1, libstdc++6, ... from the binaries
if(MBDROM_BUILD_GUI)
  # Loaded at run time, so invisible to dpkg-shlibdeps: Qt's X11/Wayland platform
  # plugins (without them no window opens) and Mesa's OpenGL drivers for the 3D view.
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "qt6-qpa-plugins")
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libgl1-mesa-dri")
  set(CPACK_DEBIAN_PACKAGE_SUGGESTS "xvfb, xauth")
endif()
if(MBDROM_BUILD_PYTHON)
  # The module imports NumPy at run time (pybind11's arrays) and is built for Debian's python3.
  list(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS "python3 (>= 3.11)" "python3 (<< 3.12)" "python3-numpy")
  list(JOIN CPACK_DEBIAN_PACKAGE_DEPENDS ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
endif()

include(CPack)

# The package test: build the .deb, unpack it into a throwaway root, run the
# installed programs and validate the desktop entry and AppStream file there.
# Only for the full package (with the workbench), not for the engine-only and
# sanitizer builds.
if(MBDROM_BUILD_TESTS AND MBDROM_BUILD_GUI)
  find_program(MBDROM_DPKG_SHLIBDEPS dpkg-shlibdeps)
  find_program(MBDROM_APPSTREAMCLI appstreamcli)
  find_program(MBDROM_DESKTOP_FILE_VALIDATE desktop-file-validate)
  if(MBDROM_DPKG_SHLIBDEPS AND MBDROM_APPSTREAMCLI AND MBDROM_DESKTOP_FILE_VALIDATE)
    add_test(NAME "packaging: the .deb installs into a scratch root and its programs run there"
      COMMAND ${CMAKE_COMMAND} -E env CPACK=${CMAKE_CPACK_COMMAND}
              sh ${PROJECT_SOURCE_DIR}/tests/packaging/check_package.sh ${PROJECT_BINARY_DIR} ${PROJECT_VERSION})
    set_tests_properties("packaging: the .deb installs into a scratch root and its programs run there" PROPERTIES
      SKIP_RETURN_CODE 77 LABELS packaging TIMEOUT 900)
  else()
    message(STATUS "Packaging test off: needs dpkg-shlibdeps, appstreamcli and desktop-file-validate "
                   "(scripts/install-deps.sh installs them)")
  endif()
endif()
