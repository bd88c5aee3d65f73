/**
 * The exact-recovery archive (docs/archive.md): one SQLite database with
 * each call's facts and exact stream bytes, a run spool, search, reading
 * back, and retention. Imported lazily by the CLI so commands that never
 * archive never load `node:sqlite`; the read-only paths (`search`, opening
 * the store) import their one module directly, so a query loads no spool,
 * commit or hashing code.
 *
 * @module
 */
export {
  ArchiveCapture,
  type CaptureOutcome,
  type CaptureStatus,
  type RunFacts,
} from "./capture.ts";
export { callBytesDir, callBytesPath, ORPHAN_AGE_MS, orphanCallFiles } from "./call_bytes.ts";
export { commandText } from "./command_text.ts";
export {
  type CallFacts,
  CHUNK_BYTES,
  commitCall,
  type CommittedCall,
  memorySource,
  SEARCH_SAMPLE_BYTES,
  searchSample,
  type StreamName,
  type StreamSource,
  WHOLE_DIGEST_BYTES,
} from "./commit.ts";
export { CALL_ID_LENGTH, isCallIdPrefix, MIN_ID_PREFIX, newCallId } from "./ids.ts";
export {
  type CallLookup,
  DamagedStreamError,
  findCall,
  findStoredResult,
  rawChunks,
  type StoredCall,
  type StoredStream,
  verifiedChunks,
  VERIFY_AHEAD_BYTES,
} from "./read.ts";
export {
  type ArchiveTotals,
  archiveTotals,
  AUTO_PRUNE_CALLS,
  AUTO_VACUUM_PAGES,
  autoRetention,
  findOrphans,
  findPrunedCall,
  forgetCall,
  makeRoom,
  pruneArchive,
  PRUNED_RECORDS,
  type PrunedCall,
  type PruneResult,
  removeCrashLeftovers,
  removeOrphanFiles,
  type RetentionLimits,
} from "./retention.ts";
export {
  compactSearchIndex,
  INDEX_BATCH_CALLS,
  indexPending,
  indexPendingCalls,
  openSearchIndex,
  searchIndexPath,
  unindexCalls,
} from "./search_index.ts";
export { ftsQuery, MAX_SEARCH_LIMIT, searchCalls, type SearchHit } from "./search.ts";
export {
  type ArchiveDisabled,
  type ArchiveSettings,
  archiveSettings,
  type ArchiveSettingsResult,
  DEFAULT_MAX_AGE_DAYS,
  DEFAULT_MAX_BYTES,
  stateDirectory,
} from "./settings.ts";
export { cleanStraySpools, RunSpool, STRAY_AGE_MS, STRAY_SCAN_LIMIT } from "./spool.ts";
export {
  ArchiveError,
  BUSY_TIMEOUT_MS,
  databasePath,
  ensurePrivateDir,
  MEMORY_COPY_LIMIT,
  openArchive,
  openCompanion,
  SCHEMA_VERSION,
  type TransactionTiming,
  writeTransaction,
} from "./store.ts";
