# gausslab_embed_files(<target> <symbol> <file> [<symbol> <file>...])
# Embeds each file into <target> at build time as gausslab::embedded::<symbol> (bytes + a trailing
# 0) and <symbol>_size; declare them `extern` where they are used. Rebuilt when the file changes.
function(gausslab_embed_files target)
  set(args ${ARGN})
  list(LENGTH args count)
  math(EXPR odd "${count} % 2")
  if(count EQUAL 0 OR odd)
    message(FATAL_ERROR "gausslab_embed_files(${target}): give pairs of <symbol> <file>")
  endif()
  set(script ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/embed_file.py)
  while(args)
    list(POP_FRONT args symbol file)
    set(output ${CMAKE_CURRENT_BINARY_DIR}/embedded/${symbol}.cpp)
    add_custom_command(
      OUTPUT ${output}
      COMMAND ${GAUSSLAB_SYSTEM_PYTHON} ${script} ${file} ${output} ${symbol}
      DEPENDS ${file} ${script}
      COMMENT "Embedding ${file}"
      VERBATIM)
    target_sources(${target} PRIVATE ${output})
  endwhile()
endfunction()
