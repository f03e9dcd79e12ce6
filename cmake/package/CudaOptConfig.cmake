# find_package(CudaOpt): the installed cuda-opt command, its clang plugin
# (when the installation has one) and cuda_opt_optimize() (docs/cmake.md).
#
#   CudaOpt_EXECUTABLE   the cuda-opt command (also the target CudaOpt::cuda-opt)
#   CudaOpt_PLUGIN       CudaOptPlugin.so, or empty (static installations)
get_filename_component(_cuda_opt_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.."
                       ABSOLUTE)
find_program(CudaOpt_EXECUTABLE cuda-opt PATHS "${_cuda_opt_prefix}/bin"
             NO_DEFAULT_PATH)
find_file(CudaOpt_PLUGIN CudaOptPlugin.so PATHS "${_cuda_opt_prefix}/lib"
          NO_DEFAULT_PATH)
if(NOT CudaOpt_EXECUTABLE)
  set(CudaOpt_FOUND FALSE)
  set(CudaOpt_NOT_FOUND_MESSAGE
      "no cuda-opt in ${_cuda_opt_prefix}/bin: reinstall cuda-opt "
      "(cmake --install BUILD --prefix PREFIX)")
  return()
endif()
if(NOT CudaOpt_PLUGIN)
  set(CudaOpt_PLUGIN "")
endif()
if(NOT TARGET CudaOpt::cuda-opt)
  add_executable(CudaOpt::cuda-opt IMPORTED)
  set_target_properties(CudaOpt::cuda-opt PROPERTIES
                        IMPORTED_LOCATION "${CudaOpt_EXECUTABLE}")
endif()
include("${CMAKE_CURRENT_LIST_DIR}/CudaOptOptimize.cmake")
