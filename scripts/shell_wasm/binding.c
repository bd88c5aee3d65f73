/*
 * The C side of lib/shell/bash_parser.ts: one tree-sitter parser for bash,
 * and a parse that hands the whole tree back as one flat array of node
 * records (pre-order), so JavaScript reads a tree with one call into the
 * module instead of one call per node. Built by scripts/build_shell_wasm.ts.
 *
 * A record is YARP_RECORD_WORDS uint32 words:
 *   0: symbol | flags << 16 (1 named, 2 missing, 4 has error)
 *   1: start index, 2: end index (UTF-16 code units, as web-tree-sitter)
 *   3: child count, 4: field id of the node in its parent (0: none)
 *   5: records in the node's subtree, itself included (next sibling offset)
 *   6: ts_node_descendant_count
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>

#define YARP_RECORD_WORDS 7
#define EXPORT(name) __attribute__((export_name(name)))

const TSLanguage *tree_sitter_bash(void);

static TSParser *parser;
static uint32_t *records;
static uint32_t record_capacity;
static uint32_t record_count;
static uint32_t *open_nodes;
static uint32_t open_capacity;

/* Room for `count` bytes the caller fills (the UTF-16 source); 0 when out of memory. */
EXPORT("yarp_alloc") void *yarp_alloc(uint32_t count) { return malloc(count); }

/* Frees what yarp_alloc returned. */
EXPORT("yarp_free") void yarp_free(void *pointer) { free(pointer); }

/* Creates the parser; 1 on success. */
EXPORT("yarp_init") int yarp_init(void) {
  parser = ts_parser_new();
  return parser != NULL && ts_parser_set_language(parser, tree_sitter_bash());
}

/* The NUL-terminated name of `symbol` (web-tree-sitter's `type`). */
EXPORT("yarp_symbol_name") const char *yarp_symbol_name(uint32_t symbol) {
  return ts_language_symbol_name(tree_sitter_bash(), (TSSymbol)symbol);
}

/* The NUL-terminated name of field `id`, or 0. */
EXPORT("yarp_field_name") const char *yarp_field_name(uint32_t id) {
  return ts_language_field_name_for_id(tree_sitter_bash(), (TSFieldId)id);
}

static int grow(uint32_t **array, uint32_t *capacity, uint32_t needed) {
  if (needed <= *capacity) return 1;
  uint32_t next = *capacity == 0 ? 1024 : *capacity;
  while (next < needed) next *= 2;
  uint32_t *grown = realloc(*array, (size_t)next * sizeof(uint32_t));
  if (grown == NULL) return 0;
  *array = grown;
  *capacity = next;
  return 1;
}

static int emit(TSNode node, TSFieldId field) {
  if (!grow(&records, &record_capacity, (record_count + 1) * YARP_RECORD_WORDS)) return 0;
  uint32_t *record = records + record_count * YARP_RECORD_WORDS;
  uint32_t flags = (ts_node_is_named(node) ? 1 : 0) | (ts_node_is_missing(node) ? 2 : 0) |
                   (ts_node_has_error(node) ? 4 : 0);
  record[0] = (uint32_t)ts_node_symbol(node) | flags << 16;
  record[1] = ts_node_start_byte(node) / 2;
  record[2] = ts_node_end_byte(node) / 2;
  record[3] = ts_node_child_count(node);
  record[4] = field;
  record[5] = 1;
  record[6] = ts_node_descendant_count(node);
  record_count += 1;
  return 1;
}

static void close_node(uint32_t index) {
  records[index * YARP_RECORD_WORDS + 5] = record_count - index;
}

/*
 * Serves the source the way web-tree-sitter's parse callback does: a copy
 * of at most 5,119 code units from the asked offset, followed by a zero
 * unit, in a 10 KiB buffer. Chunk boundaries, and what the UTF-16 decoder
 * sees one unit past a chunk's end (it looks there after a lone high
 * surrogate), are then the same as web-tree-sitter's.
 */
#define CHUNK_UNITS 5119
static uint16_t chunk[CHUNK_UNITS + 1];

struct yarp_source {
  const uint16_t *units;
  uint32_t length;
};

static const char *read_source(void *payload, uint32_t byte, TSPoint position, uint32_t *read) {
  (void)position;
  const struct yarp_source *source = payload;
  uint32_t start = byte / 2 < source->length ? byte / 2 : source->length;
  uint32_t count = source->length - start < CHUNK_UNITS ? source->length - start : CHUNK_UNITS;
  memcpy(chunk, source->units + start, count * 2);
  chunk[count] = 0;
  *read = count * 2;
  return (const char *)chunk;
}

/*
 * Parses `units` UTF-16LE code units at `source` and returns the records
 * (yarp_record_count says how many), or 0 when parsing or memory failed.
 * The records stay valid until the next call.
 */
EXPORT("yarp_parse") const uint32_t *yarp_parse(const char *source, uint32_t units) {
  record_count = 0;
  struct yarp_source input = {(const uint16_t *)source, units};
  TSTree *tree = ts_parser_parse(
      parser, NULL, (TSInput){&input, read_source, TSInputEncodingUTF16LE, NULL});
  if (tree == NULL) return 0;
  TSTreeCursor cursor = ts_tree_cursor_new(ts_tree_root_node(tree));
  uint32_t depth = 0;
  int ok = emit(ts_tree_cursor_current_node(&cursor), 0);
  while (ok) {
    if (ts_tree_cursor_goto_first_child(&cursor)) {
      if (!grow(&open_nodes, &open_capacity, depth + 1)) ok = 0;
      else {
        open_nodes[depth++] = record_count - 1;
        ok = emit(ts_tree_cursor_current_node(&cursor), ts_tree_cursor_current_field_id(&cursor));
      }
      continue;
    }
    while (!ts_tree_cursor_goto_next_sibling(&cursor)) {
      if (depth == 0) break;
      ts_tree_cursor_goto_parent(&cursor);
      close_node(open_nodes[--depth]);
    }
    if (depth == 0) break;
    ok = emit(ts_tree_cursor_current_node(&cursor), ts_tree_cursor_current_field_id(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
  ts_tree_delete(tree);
  if (!ok) return 0;
  close_node(0);
  return records;
}

/* How many records the last yarp_parse wrote. */
EXPORT("yarp_record_count") uint32_t yarp_record_count(void) { return record_count; }
