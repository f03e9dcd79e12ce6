# cmake -DIN=file -DOUT=file.inc -P EmbedText.cmake
# Writes IN's text as a C++ raw string literal (for #include in a .cpp).
file(READ ${IN} CONTENT)
file(WRITE ${OUT} "R\"cuda_opt_embed(${CONTENT})cuda_opt_embed\"\n")
