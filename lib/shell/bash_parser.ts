/**
 * The typed binding to `_bash_parser.generated.wasm`: tree-sitter's C
 * runtime and the bash grammar in one static WebAssembly module
 * (scripts/build_shell_wasm.ts builds it; docs/shell.md, "Parser module").
 * {@link instantiateBashParser} starts it; each parse copies the whole tree
 * out of the module in one call as flat records and frees it there, so a
 * {@link BashTree} is plain JavaScript data that needs no `delete()`.
 *
 * Nodes read like web-tree-sitter's (`type`, `isNamed`, `isMissing`,
 * `hasError`, `text`, `startIndex`/`endIndex` in UTF-16 code units,
 * `childCount`, `child(i)`, `children`, `fieldNameForChild(i)`,
 * `descendantCount`), and the parity test (tests/shell_parser_parity_test.ts)
 * holds them to web-tree-sitter's trees for the same sources.
 *
 * @module
 */

/** Words per node record; keep in step with scripts/shell_wasm/binding.c. */
const WORDS = 7;
const NAMED = 1;
const MISSING = 2;
const HAS_ERROR = 4;
/** WASI's ENOSYS: the module never needs files, the clock or output. */
const ENOSYS = 52;

interface Exports {
  readonly memory: WebAssembly.Memory;
  _initialize(): void;
  yarp_alloc(count: number): number;
  yarp_free(pointer: number): void;
  yarp_init(): number;
  yarp_symbol_name(symbol: number): number;
  yarp_field_name(id: number): number;
  yarp_parse(source: number, units: number): number;
  yarp_record_count(): number;
}

/** One syntax node of a {@link BashTree}. */
export interface BashNode {
  readonly type: string;
  readonly isNamed: boolean;
  /** True for a zero-width token the parser inserted; it is not in the source. */
  readonly isMissing: boolean;
  readonly hasError: boolean;
  readonly text: string;
  readonly startIndex: number;
  readonly endIndex: number;
  readonly childCount: number;
  /** Nodes in this subtree, itself included (tree-sitter's count). */
  readonly descendantCount: number;
  readonly children: readonly BashNode[];
  child(index: number): BashNode | null;
  fieldNameForChild(index: number): string | null;
}

/** A parsed source. */
export interface BashTree {
  readonly rootNode: BashNode;
}

/** A started parser; `parse` is synchronous. */
export interface BashParser {
  /** The tree of `source`, or null when the module could not parse it (out of memory). */
  parse(source: string): BashTree | null;
}

/** The imports the module declares: four WASI calls, none of which it needs. */
function wasiStubs(memory: () => WebAssembly.Memory): WebAssembly.Imports {
  return {
    wasi_snapshot_preview1: {
      // Only read for parse timeouts, which YARP never sets: report time zero.
      clock_time_get: (_id: number, _precision: bigint, out: number) => {
        new DataView(memory().buffer).setBigUint64(out, 0n, true);
        return 0;
      },
      fd_close: () => ENOSYS,
      fd_seek: () => ENOSYS,
      fd_write: () => ENOSYS,
    },
  };
}

/**
 * Instantiates `module` (the bytes of `_bash_parser.generated.wasm`,
 * compiled) and creates its parser. Throws when the module does not start.
 */
export function instantiateBashParser(module: WebAssembly.Module): BashParser {
  const memory = () => (instance.exports as unknown as Exports).memory;
  const instance = new WebAssembly.Instance(module, wasiStubs(memory));
  const exports = instance.exports as unknown as Exports;
  exports._initialize();
  if (exports.yarp_init() !== 1) throw new Error("bash parser: the language did not load");
  return new Parser(exports);
}

const UTF8 = new TextDecoder();

class Parser implements BashParser {
  readonly #exports: Exports;
  readonly #symbols = new Map<number, string>();
  readonly #fields = new Map<number, string | null>();

  constructor(exports: Exports) {
    this.#exports = exports;
  }

  parse(source: string): BashTree | null {
    const wasm = this.#exports;
    const input = wasm.yarp_alloc(Math.max(2, source.length * 2));
    if (input === 0) return null;
    try {
      const units = new Uint16Array(wasm.memory.buffer, input, source.length);
      for (let index = 0; index < source.length; index += 1) {
        units[index] = source.charCodeAt(index);
      }
      const pointer = wasm.yarp_parse(input, source.length);
      if (pointer === 0) return null;
      const count = wasm.yarp_record_count();
      const records = new Uint32Array(wasm.memory.buffer, pointer, count * WORDS).slice();
      return new Tree(this, source, records);
    } finally {
      wasm.yarp_free(input);
    }
  }

  symbolName(symbol: number): string {
    let name = this.#symbols.get(symbol);
    if (name === undefined) {
      name = this.#string(this.#exports.yarp_symbol_name(symbol)) ?? "";
      this.#symbols.set(symbol, name);
    }
    return name;
  }

  fieldName(id: number): string | null {
    if (id === 0) return null;
    let name = this.#fields.get(id);
    if (name === undefined) {
      name = this.#string(this.#exports.yarp_field_name(id));
      this.#fields.set(id, name);
    }
    return name;
  }

  #string(pointer: number): string | null {
    if (pointer === 0) return null;
    const bytes = new Uint8Array(this.#exports.memory.buffer);
    const end = bytes.indexOf(0, pointer);
    return UTF8.decode(bytes.subarray(pointer, end));
  }
}

class Tree implements BashTree {
  readonly rootNode: BashNode;
  /** Record indexes of each parent's children, filled on first use. */
  readonly #children = new Map<number, Int32Array>();

  constructor(
    readonly parser: Parser,
    readonly source: string,
    readonly records: Uint32Array,
  ) {
    this.rootNode = new Node(this, 0);
  }

  childIndexes(index: number): Int32Array {
    let indexes = this.#children.get(index);
    if (indexes === undefined) {
      const records = this.records;
      indexes = new Int32Array(records[index * WORDS + 3]);
      let next = index + 1;
      for (let child = 0; child < indexes.length; child += 1) {
        indexes[child] = next;
        next += records[next * WORDS + 5];
      }
      this.#children.set(index, indexes);
    }
    return indexes;
  }
}

class Node implements BashNode {
  readonly #tree: Tree;
  readonly #index: number;

  constructor(tree: Tree, index: number) {
    this.#tree = tree;
    this.#index = index;
  }

  #word(offset: number): number {
    return this.#tree.records[this.#index * WORDS + offset];
  }

  get type(): string {
    return this.#tree.parser.symbolName(this.#word(0) & 0xffff);
  }
  get isNamed(): boolean {
    return ((this.#word(0) >>> 16) & NAMED) !== 0;
  }
  get isMissing(): boolean {
    return ((this.#word(0) >>> 16) & MISSING) !== 0;
  }
  get hasError(): boolean {
    return ((this.#word(0) >>> 16) & HAS_ERROR) !== 0;
  }
  get startIndex(): number {
    return this.#word(1);
  }
  get endIndex(): number {
    return this.#word(2);
  }
  get text(): string {
    return this.#tree.source.slice(this.#word(1), this.#word(2));
  }
  get childCount(): number {
    return this.#word(3);
  }
  get descendantCount(): number {
    return this.#word(6);
  }
  get children(): BashNode[] {
    return Array.from(this.#tree.childIndexes(this.#index), (index) => new Node(this.#tree, index));
  }
  child(index: number): BashNode | null {
    const indexes = this.#tree.childIndexes(this.#index);
    return index >= 0 && index < indexes.length ? new Node(this.#tree, indexes[index]) : null;
  }
  fieldNameForChild(index: number): string | null {
    const indexes = this.#tree.childIndexes(this.#index);
    if (index < 0 || index >= indexes.length) return null;
    return this.#tree.parser.fieldName(this.#tree.records[indexes[index] * WORDS + 4]);
  }
}
