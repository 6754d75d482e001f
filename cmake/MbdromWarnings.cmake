# Strict warnings for mbdrom's own targets. GCC 12 + Eigen 3.4 raise false
# -Warray-bounds / -Wstringop-overflow / -Wmaybe-uninitialized (and -Wrestrict in
# std::string code, GCC bug 105329) in optimised
# builds (design notes): they stay warnings, never errors.
function(mbdrom_set_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast
    -Wcast-align -Woverloaded-virtual
    -Wformat=2 -Wimplicit-fallthrough)
  # No -Wnull-dereference: with GCC 12 it adds ~20 % to the compile time of the
  # Eigen-heavy sources (pca_model.cpp: 82 s -> 66 s without it) for rare finds;
  # the sanitizer stage catches null dereferences at run time.
  if(MBDROM_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      target_compile_options(${target} PRIVATE
        -Wno-error=array-bounds -Wno-error=stringop-overflow -Wno-error=maybe-uninitialized
        -Wno-error=restrict)  # GCC 12 false positive in std::string concatenation at -O2
    endif()
  endif()
endfunction()
