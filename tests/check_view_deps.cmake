cmake_minimum_required(VERSION 3.25)
# Fails when a file under app/ or widgets/ includes VTK outside the scene view,
# or Qt Charts outside the plot widgets: each stays replaceable behind its widget.
set(vtk_allowed widgets/scene_view.cpp widgets/scene_view_vtk.h widgets/scene_view_input.cpp
  widgets/scene_view_placement.cpp
  widgets/mechanism_scene.cpp widgets/mechanism_actors.h widgets/mechanism_actors.cpp
  widgets/scene_parts.h widgets/scene_parts.cpp)
set(charts_allowed widgets/plot_view.h widgets/plot_view.cpp
  widgets/training_curves_plot.h widgets/training_curves_plot.cpp)
set(include "^[ \t]*#[ \t]*include[ \t]*[<\"]")
file(GLOB_RECURSE files RELATIVE ${SOURCE_DIR}
  ${SOURCE_DIR}/app/*.h ${SOURCE_DIR}/app/*.cpp ${SOURCE_DIR}/widgets/*.h ${SOURCE_DIR}/widgets/*.cpp)
set(bad "")
foreach(f ${files})
  file(STRINGS ${SOURCE_DIR}/${f} vtk REGEX "${include}vtk")
  if(vtk AND NOT f IN_LIST vtk_allowed)
    string(JOIN ", " vtk ${vtk})
    list(APPEND bad "${f}: ${vtk}")
  endif()
  file(STRINGS ${SOURCE_DIR}/${f} charts
    REGEX "${include}(QtCharts/|QChart|QLegend|Q[A-Za-z]*Series[>\"]|Q[A-Za-z]*Axis[>\"])")
  if(charts AND NOT f IN_LIST charts_allowed)
    string(JOIN ", " charts ${charts})
    list(APPEND bad "${f}: ${charts}")
  endif()
endforeach()
if(bad)
  string(REPLACE ";" "\n" bad "${bad}")
  message(FATAL_ERROR "VTK belongs to the scene view, Qt Charts to the plot widgets:\n${bad}")
endif()
list(LENGTH files n)
message(STATUS "${n} app and widget files checked: VTK and Qt Charts only where allowed")
