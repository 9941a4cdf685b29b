/**
 * A scan as stored. The access token itself is never stored: only its keyed hash (see scan/token.ts).
 * The status values are ours (the spec hides them); DESIGN.md's lifecycle table explains each one.
 */
import { defineEntity, p } from '@mikro-orm/core';

export const SCAN_STATUSES = ['awaiting_upload', 'queued', 'analyzing', 'complete', 'failed'] as const;
export type ScanStatusName = (typeof SCAN_STATUSES)[number];

export const ScanSchema = defineEntity({
  name: 'Scan',
  tableName: 'scans',
  properties: {
    id: p.uuid().primary(),
    tokenHash: p.string().length(64),
    source: p.string().length(100),
    status: p.enum([...SCAN_STATUSES]).default('awaiting_upload'),
    stage: p.string().default(''),
    progress: p.integer().default(0),
    failureReason: p.string().nullable(),
    scores: p.json<Record<string, number>>().nullable(),
    concerns: p.json<string[]>().nullable(),
    /** The models and calibration that produced the scores, by role. */
    analysisModels: p.json<Record<string, string>>().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
    expiresAt: p.datetime(),
    completedAt: p.datetime().nullable(),
    /** The account that owns the scan; null for a guest scan. */
    accountId: p.uuid().nullable(),
    /** Raised by one on every change, by the database (migration 0012); WatchScan compares it. */
    version: p.integer().default(0),
  },
});

export class Scan extends ScanSchema.class {}
ScanSchema.setClass(Scan);
