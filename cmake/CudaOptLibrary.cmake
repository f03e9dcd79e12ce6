#===- CudaOptLibrary.cmake - One static library per lib/ stage -----------===#
#
# add_cuda_opt_library(Name src... [LINK_LIBS lib...] [DEPENDS target...])
# builds lib/<Stage> as the static library CudaOpt<Stage>. LINK_LIBS names
# only cuda-opt libraries of the stages below (utils/check-layering.py checks
# it), runtime libraries and CudaOptMLIR. Every library links CudaOptLLVM
# (LLVM and Clang, static or shared, top-level CMakeLists.txt), which
# therefore comes after all of cuda-opt's archives on a tool's link line.
#
#===----------------------------------------------------------------------===#
function(add_cuda_opt_library name)
  cmake_parse_arguments(ARG "" "" "LINK_LIBS;DEPENDS" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  llvm_update_compile_flags(${name})
  if(NOT CUDA_OPT_STATIC)
    # The clang plugin is a shared module built from these archives.
    set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  endif()
  target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS} CudaOptLLVM)
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
endfunction()
