# Writes a C++ source defining `const char ${SYMBOL}[]` with the contents of
# ${INPUT}. Run as `cmake -DINPUT=... -DOUTPUT=... -DSYMBOL=... -DNAMESPACE=...
# -P EmbedFile.cmake` so that the output is regenerated when the input changes.
file(READ ${INPUT} content HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${content}")
file(WRITE ${OUTPUT}.tmp
  "// Generated from ${INPUT}; do not edit.\n"
  "namespace ${NAMESPACE} {\n"
  "extern const char ${SYMBOL}[];\n"
  "const char ${SYMBOL}[] = {${bytes} '\\0'};\n"
  "} // namespace ${NAMESPACE}\n")
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUTPUT}.tmp)
