import type { Static } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import { validationFailed } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { fetchPage, type PageRequest } from '../../../core/pagination.ts';
import { findRow, insertRows } from '../../../db/find-row.ts';
import type { DB } from '../../../db/tables.ts';
import type { DataAgentKnowledgeArtifactsTable } from './governed-tables.ts';
import { type ObjectRef, parseRefs, refsJson } from './object-refs.ts';
import type { KNOWLEDGE_KINDS, KNOWLEDGE_STATUSES, KnowledgeArtifactSchema } from './records-schemas.ts';

export type KnowledgeArtifact = Static<typeof KnowledgeArtifactSchema>;
export type KnowledgeKind = (typeof KNOWLEDGE_KINDS)[number];

/** Markdown content is at most 256 KiB (UTF-8 bytes). */
export const MAX_KNOWLEDGE_CONTENT_BYTES = 256 * 1024;

/** validation_failed on content above 256 KiB. */
export function checkKnowledgeContent(content: string): void {
  if (Buffer.byteLength(content, 'utf8') > MAX_KNOWLEDGE_CONTENT_BYTES) {
    throw validationFailed([{ field: 'content', message: 'is over 256 KiB (262,144 bytes of UTF-8)' }]);
  }
}

export function toKnowledgeArtifact(row: DataAgentKnowledgeArtifactsTable): KnowledgeArtifact {
  return {
    id: row.id,
    title: row.title,
    kind: row.kind as KnowledgeKind,
    content: row.content,
    source_refs: parseRefs(row.source_refs),
    status: row.status as (typeof KNOWLEDGE_STATUSES)[number],
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export interface NewKnowledgeArtifact {
  workspaceId: string;
  title: string;
  kind: KnowledgeKind;
  content: string;
  /** Checked by the caller (object-refs.ts checkRefs) when they come from input. */
  sourceRefs: readonly ObjectRef[];
  status?: 'draft' | 'published';
  now: string;
}

/**
 * Writes a knowledge artifact: create_data_agent_knowledge_artifact, knowledge_build execution jobs and the
 * content performance knowledgebase workflow share it. Content over 256 KiB is validation_failed on content.
 * The caller audits and emits data_agent_knowledge_artifact.created in its own transaction.
 */
export async function insertKnowledgeArtifact(
  db: Kysely<DB>,
  artifact: NewKnowledgeArtifact,
): Promise<KnowledgeArtifact> {
  checkKnowledgeContent(artifact.content);
  const row: DataAgentKnowledgeArtifactsTable = {
    workspace_id: artifact.workspaceId,
    id: newId('dka'),
    title: artifact.title,
    kind: artifact.kind,
    content: artifact.content,
    source_refs: refsJson(artifact.sourceRefs),
    status: artifact.status ?? 'draft',
    created_at: artifact.now,
    updated_at: artifact.now,
  };
  await insertRows(db, 'data_agent_knowledge_artifacts', row);
  return toKnowledgeArtifact(row);
}

export async function listKnowledgeArtifacts(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { kind?: string; status?: string },
  page: PageRequest,
) {
  let query = db
    .selectFrom('data_agent_knowledge_artifacts')
    .selectAll()
    .where('workspace_id', '=', workspaceId);
  if (filters.kind) query = query.where('kind', '=', filters.kind);
  if (filters.status) query = query.where('status', '=', filters.status);
  const result = await fetchPage(query, page);
  return { ...result, items: result.items.map(toKnowledgeArtifact) };
}

export const findKnowledgeArtifact = (db: Kysely<DB>, workspaceId: string, id: string) =>
  findRow(db, 'data_agent_knowledge_artifacts', workspaceId, id);
