// The signed asset content URLs: PUT and GET /v1/assets/{asset_id}/content?expires=...&signature=...
// They sit outside the operation registry: no bearer token (the URL is the credential), and raw byte
// bodies streamed to and from the storage driver instead of JSON.
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { PipelineDeps } from '../../core/call.ts';
import { insertCallEvent } from '../../core/call-events.ts';
import { asServiceError, fail, notFound, type ServiceError } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { assertNoNul } from '../../core/schema.ts';
import { findAssetById } from '../../modules/assets/asset-store.ts';
import type { AssetsTable } from '../../modules/assets/asset-tables.ts';
import { signatureMatches, signingKey, type UrlAction } from '../../modules/assets/signing.ts';
import { storageFor } from '../../modules/assets/storage/configured.ts';
import { ObjectTooLarge } from '../../modules/assets/storage/storage.ts';
import { assertContentAccess, stagingKey } from '../../modules/assets/upload-lifecycle.ts';
import { sendError } from '../http-errors.ts';

const PATH = '/v1/assets/:asset_id/content';

/** RFC 6266: an ASCII fallback plus the UTF-8 name. */
export function contentDisposition(fileName: string): string {
  const fallback = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

export async function registerAssetContentRoutes(app: FastifyInstance, deps: PipelineDeps): Promise<void> {
  const db = deps.database.db;
  const storage = storageFor(deps.config);
  /** An upload may send at most what its intent declared (itself within WOS_MAX_UPLOAD_BYTES). */
  const tooLarge = (declared: number) =>
    fail('payload_too_large', {
      message: `The upload is larger than the ${declared} bytes its intent declared (size_bytes).`,
    });

  /** The asset a signed URL names, once its signature and expiry hold and it is in the state the action needs. */
  async function signedAsset(request: FastifyRequest, action: UrlAction, found: { row?: AssetsTable }) {
    const { asset_id: assetId } = request.params as { asset_id: string };
    assertNoNul(assetId, 'asset_id');
    const { expires, signature } = request.query as Record<string, unknown>;
    if (
      typeof expires !== 'string' ||
      !/^\d{1,12}$/.test(expires) ||
      typeof signature !== 'string' ||
      signature.length > 128
    ) {
      throw fail('signature_invalid', {
        message: 'The URL lacks a valid expires and signature; use a URL the service issued.',
      });
    }
    const row = await findAssetById(db, assetId);
    if (
      !row ||
      !signatureMatches(await signingKey(db), action, row.workspace_id, row.id, Number(expires), signature)
    ) {
      throw fail('signature_invalid');
    }
    // A deleted workspace records no usage: its URLs answer as if the asset were gone.
    if (row.workspace_deleted_at === null) found.row = row;
    if (deps.clock.now().getTime() > Number(expires) * 1000) {
      throw fail('signature_invalid', { message: 'This signed URL has expired; request a new one.' });
    }
    assertContentAccess(row, action, deps.clock.now());
    return row;
  }

  /** The usage record of a signed call, once its workspace is known; not billed (the issuing call was). */
  async function recordCall(
    request: FastifyRequest,
    row: AssetsTable,
    status: number,
    error: ServiceError | undefined,
    started: number,
  ) {
    await insertCallEvent(db, {
      workspace_id: row.workspace_id,
      id: newId('call'),
      request_id: request.id,
      occurred_at: deps.clock.now().toISOString(),
      kind: 'api_request',
      route: `${request.method} /v1/assets/{asset_id}/content`,
      method: request.method,
      credential_id: null,
      credential_path: 'rest/signed_url',
      http_status: status,
      error_code: error?.code ?? null,
      duration_ms: Math.round(performance.now() - started),
      units: 1,
      billed_units: 0,
    }).catch((err) =>
      request.log.error({ err, request_id: request.id }, 'could not record a signed URL call'),
    );
  }

  type Serve = (
    row: AssetsTable,
    request: FastifyRequest,
    reply: FastifyReply,
    record: () => Promise<void>,
  ) => Promise<unknown>;

  function handle(action: UrlAction, serve: Serve) {
    return async (request: FastifyRequest, reply: FastifyReply) => {
      const started = performance.now();
      const found: { row?: AssetsTable } = {};
      try {
        const row = await signedAsset(request, action, found);
        // Recorded before the answer is sent, so a client that got it finds the usage event.
        return await serve(row, request, reply, () => recordCall(request, row, 200, undefined, started));
      } catch (thrown) {
        const error = thrown instanceof ObjectTooLarge ? tooLarge(thrown.maxBytes) : asServiceError(thrown);
        if (error.code === 'internal_error')
          request.log.error({ err: thrown, request_id: request.id }, 'signed asset call failed');
        // A refused upload may still be streaming in: close the connection rather than read the rest.
        if (action === 'upload') reply.header('connection', 'close');
        if (found.row) await recordCall(request, found.row, error.status, error, started);
        return sendError(reply, error, deps.config.publicUrl);
      }
    };
  }

  await app.register(async (scope) => {
    // Upload bodies of any media type stay unparsed streams, JSON included.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

    scope.put(
      PATH,
      handle('upload', async (row, request, reply, record) => {
        const maxBytes = Number(row.size_bytes);
        const length = Number(request.headers['content-length']);
        if (Number.isFinite(length) && length > maxBytes) throw tooLarge(maxBytes);
        const body = (request.body as Readable | undefined) ?? request.raw;
        // Counted while streaming: past size_bytes the write fails and its partial file is deleted.
        const stored = await storage.write(stagingKey(row), body, maxBytes);
        // The asset may have been completed, archived or deleted while the bytes streamed in: then they
        // are dropped rather than staged for nobody (completion never reads them anyway).
        const current = await findAssetById(db, row.id);
        try {
          if (!current) throw notFound('asset');
          assertContentAccess(current, 'upload', deps.clock.now());
        } catch (error) {
          await storage.remove(stagingKey(row));
          throw error;
        }
        await record();
        return reply.code(200).send({
          upload: { asset_id: row.id, size_bytes: stored.sizeBytes, sha256: stored.sha256 },
          request_id: request.id,
        });
      }),
    );

    scope.get(
      PATH,
      handle('download', async (row, _request, reply, record) => {
        const stored = await storage.read(row.storage_key);
        if (!stored) throw notFound('asset content');
        await record();
        return reply
          .code(200)
          .header('content-type', row.mime_type)
          .header('content-length', String(stored.sizeBytes))
          .header('content-disposition', contentDisposition(row.file_name))
          .header('x-content-type-options', 'nosniff')
          .header('cache-control', 'private, no-store')
          .send(stored.stream);
      }),
    );
  });
}
