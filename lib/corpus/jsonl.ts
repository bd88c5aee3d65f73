/**
 * Streaming JSON-lines input: a file's lines, gunzipped when the file starts
 * with the gzip magic bytes, decoded as UTF-8, one at a time. Memory is one
 * line plus one decoder chunk, whatever the file's size.
 *
 * @module
 */

/** One line of a JSONL file, without its line ending. */
export interface JsonlLine {
  readonly text: string;
  /** 1-based line number. */
  readonly number: number;
}

const GZIP_MAGIC = [0x1f, 0x8b];

/** True when `path` starts with the gzip magic bytes. */
async function isGzip(path: string): Promise<boolean> {
  const file = await Deno.open(path);
  try {
    const head = new Uint8Array(2);
    const read = await file.read(head);
    return read === 2 && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
  } finally {
    file.close();
  }
}

/**
 * Yields the non-empty lines of `path` (gzip or plain text; CR before LF
 * dropped). `onBytes` is told how many file bytes (compressed, as stored)
 * have been read so far, for progress. Throws the file's open or read error
 * (for example `Deno.errors.NotFound`) or a decompression error.
 */
export async function* readJsonlLines(
  path: string,
  onBytes?: (bytesRead: number) => void,
): AsyncGenerator<JsonlLine> {
  const gzip = await isGzip(path);
  const file = await Deno.open(path);
  let bytesRead = 0;
  let stream: ReadableStream<Uint8Array> = file.readable.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        bytesRead += chunk.length;
        onBytes?.(bytesRead);
        controller.enqueue(chunk);
      },
    }),
  );
  if (gzip) {
    stream = stream.pipeThrough(
      new DecompressionStream("gzip") as TransformStream<Uint8Array, Uint8Array>,
    );
  }
  let pending = "";
  let number = 0;
  const emit = function* (text: string): Generator<JsonlLine> {
    number++;
    const line = text.endsWith("\r") ? text.slice(0, -1) : text;
    if (line.trim() !== "") yield { text: line, number };
  };
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    let start = 0;
    let lf = chunk.indexOf("\n");
    if (lf < 0) {
      pending += chunk;
      continue;
    }
    yield* emit(pending + chunk.slice(0, lf));
    pending = "";
    start = lf + 1;
    while ((lf = chunk.indexOf("\n", start)) >= 0) {
      yield* emit(chunk.slice(start, lf));
      start = lf + 1;
    }
    pending = chunk.slice(start);
  }
  if (pending !== "") yield* emit(pending);
}
