/**
 * The shell model: the only facts about accepted shell source that planning
 * and rewriting read (docs/architecture.md, "Shell model"). Every word is a decoded
 * literal; every span is a UTF-16 offset range into the source. Types only.
 *
 * @module
 */

/** A word decoded to the exact argument bash would pass, with its source span. */
export interface LiteralWord {
  readonly text: string;
  readonly start: number;
  readonly end: number;
  /**
   * Set only by the global output cap's parse (`acceptTree` with
   * `opaqueWords`): a glob or expansion whose expanded text is unknown; its
   * `text` is "".
   */
  readonly opaque?: true;
  /**
   * Set on an opaque word or assignment value whose expansion runs or may
   * print something of its own: a command or process substitution, an
   * arithmetic expansion (its errors print) or `${NAME?…}` / `${NAME:?…}`.
   */
  readonly substitutes?: true;
}

/** Where a descriptor points after a redirection: the pipe/visible stdout, visible stderr, or nowhere. */
export type StreamTarget = "stdout" | "stderr" | "null";

/**
 * One reviewed redirection, in source order: `N>&M` duplicates descriptor
 * `M` onto `N` (`dup`), `N>/dev/null` (also `>>`, `&>`, `&>>`) discards `N`
 * (`null`). `fd` is 1 or 2; `both` stands for `&>`.
 */
export interface Redirection {
  readonly kind: "dup" | "null";
  readonly fd: 1 | 2 | "both";
  /** The descriptor copied for `dup` (1 or 2). */
  readonly from?: 1 | 2;
  readonly start: number;
  readonly end: number;
}

/** A literal `NAME=value` before a command, alone, or after `export` (value decoded). */
export interface Assignment {
  readonly name: string;
  /** The decoded value; "" when `opaque`. */
  readonly value: string;
  readonly start: number;
  readonly end: number;
  /** As on {@link LiteralWord}: set only by the opaque-word parse. */
  readonly opaque?: true;
  /** As on {@link LiteralWord}. */
  readonly substitutes?: true;
}

/** A command with only literal words and reviewed redirections. */
export interface SimpleCommand {
  /**
   * argv: program name first. Empty only for an assignment-only statement
   * (`NAME=value`); `export NAME=value` keeps `export` as its one word.
   */
  readonly words: readonly LiteralWord[];
  readonly redirects: readonly Redirection[];
  readonly start: number;
  readonly end: number;
  /** Literal assignments before the program (or of `export`/an assignment-only statement). */
  readonly assignments?: readonly Assignment[];
  /**
   * The accepted program of a `bash -c 'LITERAL'` / `sh -c 'LITERAL'` stage
   * (see lib/shell/stage_forms.ts), attached by the parser; absent otherwise.
   */
  readonly nested?: ShellProgram;
  /**
   * Set only by the opaque-word parse: the command reads a here-document
   * (`python3 - <<'EOF' … EOF`) as its stdin. The body is input, never
   * output.
   */
  readonly stdinDocument?: true;
}

/** Stages joined by `|`; `mergeStderr` is true when any join is `|&`. */
export interface Pipeline {
  readonly stages: readonly SimpleCommand[];
  readonly mergeStderr: boolean;
}

/** How two pipelines of a list are joined: `;`, `&&` or `||`. */
export type Connector = "sequence" | "and" | "or";

/** Pipelines and the connectors between them (`connectors.length === pipelines.length - 1`). */
export interface CommandList {
  readonly pipelines: readonly Pipeline[];
  readonly connectors: readonly Connector[];
}

/** An accepted program: its newline-separated command lists, in order. */
export interface ShellProgram {
  readonly lists: readonly CommandList[];
}

/** Why shell source was not accepted; stable codes, never command text. */
export type ShellRejectReason =
  | "empty"
  | "nul-byte"
  | "source-too-large"
  | "too-many-nodes"
  | "too-deep"
  | "too-many-stages"
  | "syntax-error"
  | "incomplete-cover"
  | "unsupported-syntax"
  | "expansion"
  | "glob"
  | "assignment"
  | "background"
  | "redirect-unsupported"
  | "parser-unavailable";

/** The outcome of parsing: an accepted program, or one reason and (for syntax) the node kind. */
export type ShellParse =
  | { readonly ok: true; readonly program: ShellProgram }
  | { readonly ok: false; readonly reason: ShellRejectReason; readonly nodeKind?: string };

/** Fixed parser limits (docs/architecture.md, "Parser"). */
export const SHELL_LIMITS = {
  sourceBytes: 256 * 1024,
  nodes: 16_384,
  depth: 64,
  stages: 256,
} as const;
