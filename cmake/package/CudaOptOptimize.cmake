# cuda_opt_optimize(TARGET t (DATABASE db | PREDICT) [FP_MODEL model])
#
# Optimizes the CUDA sources of target t with cuda-opt (docs/cmake.md):
#   DATABASE db  the best verified variant the tuning database db recorded
#                for each kernel (`cuda-opt apply`; needs no GPU);
#   PREDICT      each kernel's rewrite the learned ranker predicts fastest
#                among those that keep every floating-point operation
#                (`cuda-opt FILE.cu`; not measured).
# With nvcc (or PREDICT) each .cu source is rewritten into the build tree
# (cuda-opt/<target>/) before the compiler sees it, rebuilt when the source,
# the database or cuda-opt changes; the target compiles the rewritten
# copies, with the original's directory on the include path. With clang as
# the CUDA compiler and DATABASE, the plugin applies the database inside the
# compile instead (-fplugin-arg-cudaopt-db), and the objects depend on the
# database. FP_MODEL: strict, reassoc (default) or fast.
function(cuda_opt_optimize)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "PREDICT" "TARGET;DATABASE;FP_MODEL"
                        "")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "cuda_opt_optimize: unknown arguments "
                        "'${ARG_UNPARSED_ARGUMENTS}' (TARGET, DATABASE, "
                        "PREDICT, FP_MODEL)")
  endif()
  if(NOT ARG_TARGET OR NOT TARGET "${ARG_TARGET}")
    message(FATAL_ERROR "cuda_opt_optimize: TARGET '${ARG_TARGET}' is not a "
                        "target of this project")
  endif()
  if((ARG_DATABASE AND ARG_PREDICT) OR (NOT ARG_DATABASE AND NOT ARG_PREDICT))
    message(FATAL_ERROR "cuda_opt_optimize(TARGET ${ARG_TARGET}): give "
                        "DATABASE db (the measured choices) or PREDICT (the "
                        "predicted strict rewrites), one of them")
  endif()
  if(NOT ARG_FP_MODEL)
    set(ARG_FP_MODEL reassoc)
  endif()
  if(NOT ARG_FP_MODEL MATCHES "^(strict|reassoc|fast)$")
    message(FATAL_ERROR "cuda_opt_optimize: FP_MODEL '${ARG_FP_MODEL}': use "
                        "strict, reassoc or fast")
  endif()
  set(db "")
  if(ARG_DATABASE)
    get_filename_component(db "${ARG_DATABASE}" ABSOLUTE
                           BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  endif()
  get_target_property(sources ${ARG_TARGET} SOURCES)
  get_target_property(source_dir ${ARG_TARGET} SOURCE_DIR)

  # clang compiles CUDA with the plugin: the database applied in the compile.
  if(ARG_DATABASE AND CMAKE_CUDA_COMPILER_ID STREQUAL "Clang"
     AND CudaOpt_PLUGIN)
    target_compile_options(${ARG_TARGET} PRIVATE
      "$<$<COMPILE_LANGUAGE:CUDA>:-fplugin=${CudaOpt_PLUGIN};-fplugin-arg-cudaopt-db=${db};-fplugin-arg-cudaopt-fpmodel=${ARG_FP_MODEL}>")
    foreach(src IN LISTS sources)
      if(src MATCHES "\\.cu$")
        set_property(SOURCE "${src}" TARGET_DIRECTORY ${ARG_TARGET}
                     APPEND PROPERTY OBJECT_DEPENDS "${db}")
      endif()
    endforeach()
    return()
  endif()

  # Otherwise rewrite each .cu source into the build tree.
  set(includes "$<TARGET_PROPERTY:${ARG_TARGET},INCLUDE_DIRECTORIES>")
  set(defines "$<TARGET_PROPERTY:${ARG_TARGET},COMPILE_DEFINITIONS>")
  set(new_sources "")
  foreach(src IN LISTS sources)
    if(NOT src MATCHES "\\.cu$")
      list(APPEND new_sources "${src}")
      continue()
    endif()
    get_filename_component(abs "${src}" ABSOLUTE BASE_DIR "${source_dir}")
    file(RELATIVE_PATH rel "${source_dir}" "${abs}")
    string(REPLACE "../" "__/" rel "${rel}")
    set(out "${CMAKE_CURRENT_BINARY_DIR}/cuda-opt/${ARG_TARGET}/${rel}")
    get_filename_component(abs_dir "${abs}" DIRECTORY)
    if(ARG_DATABASE)
      set(mode apply "${abs}" --db "${db}")
      set(what "the tuning database's choices")
    else()
      set(mode "${abs}")
      set(what "the predicted pipeline")
    endif()
    add_custom_command(
      OUTPUT "${out}"
      COMMAND CudaOpt::cuda-opt ${mode} --fp-model=${ARG_FP_MODEL} -o "${out}"
              -- "-I${abs_dir}"
              "$<$<BOOL:${includes}>:-I$<JOIN:${includes},;-I>>"
              "$<$<BOOL:${defines}>:-D$<JOIN:${defines},;-D>>"
      DEPENDS "${abs}" ${db} CudaOpt::cuda-opt
      COMMENT "cuda-opt: ${rel} with ${what}"
      COMMAND_EXPAND_LISTS VERBATIM)
    set_source_files_properties("${out}" TARGET_DIRECTORY ${ARG_TARGET}
                                PROPERTIES INCLUDE_DIRECTORIES "${abs_dir}")
    list(APPEND new_sources "${out}")
  endforeach()
  set_property(TARGET ${ARG_TARGET} PROPERTY SOURCES "${new_sources}")
endfunction()
