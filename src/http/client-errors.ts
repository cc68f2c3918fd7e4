/**
 * What HTTP itself refuses, answered from the catalog like every other
 * refusal: a request Node's parser cannot read, a request head past Node's
 * limit, a request that does not arrive in time, a `CONNECT`, an HTTP/1.1
 * request without `Host`, and a URL Fastify cannot decode.
 *
 * Node reports an unreadable request on the server's `clientError` event and,
 * when nobody listens, writes a bare status line itself; Fastify always
 * listens and writes its own JSON (`"message":"Client Error"`), which is not
 * the uniform refusal. The listener here runs ahead of Fastify's: it writes
 * the catalog's refusal straight to the socket (no route ran, so no reply
 * exists to write it through), with a `request-id` of its own, and destroys
 * the socket, and Fastify's listener, finding it destroyed, does nothing.
 * Nothing of such a request ran, so nothing was written.
 *
 * Who is answered:
 * - a request that did not arrive whole in time (ERR_HTTP_REQUEST_TIMEOUT,
 *   `edge-limits.ts` sets the timeout): 408 REQUEST_TIMEOUT, unless nothing
 *   at all arrived (no request to answer: the connection is closed);
 * - a request head past `http.maxHeaderSize` (HPE_HEADER_OVERFLOW): 431
 *   HEADERS_TOO_LARGE;
 * - anything else the parser refuses (a bad method, a Content-Length that is
 *   not a number, a malformed header): 400 MALFORMED_HTTP;
 * - a connection reset or an abort mid-request: nobody left to answer.
 * A `CONNECT` (Node hands it to a `connect` listener, or closes it unanswered
 * when there is none) is answered 400 MALFORMED_HTTP: this is not a proxy.
 * An HTTP/1.1 request without `Host` reaches Fastify (Node's own check would
 * write a bare 400 with no body) and is refused in `onRequest`, as RFC 9112
 * asks. A path Fastify cannot percent-decode is refused 400 MALFORMED_URL by
 * its `frameworkErrors` hook (`frameworkRefusal`).
 */
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Refusal } from '../domain/refusal.ts';
import { refusal } from '../domain/refusals.ts';
import { countRefusal } from './edge-metrics.ts';

/** Errors of a socket that is gone: there is nobody to answer. */
const GONE = new Set(['ECONNRESET', 'EPIPE', 'HPE_INVALID_EOF_STATE', 'ERR_STREAM_PREMATURE_CLOSE']);

/** The refusal for a request Node's parser gave up on, or null when there is no one to answer. */
function refusalFor(error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket, requestTimeoutMs: number | undefined): Refusal | null {
  if (error.code === undefined || GONE.has(error.code) || !socket.writable) return null;
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    // Nothing arrived on this connection: there is no request to answer.
    return socket.bytesRead > 0 ? refusal('REQUEST_TIMEOUT', { timeoutMs: requestTimeoutMs ?? 0 }) : null;
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') return refusal('HEADERS_TOO_LARGE', { limitBytes: maxHeaderSize });
  return refusal('MALFORMED_HTTP', { detail: `${error.code}: ${error.message.replace(/^Parse Error: /, '')}` });
}

/** A refusal written straight to a socket, closing it: for requests no route (and no Fastify reply) ever held. */
function writeAndClose(socket: Duplex, refused: Refusal, requestId: string): void {
  countRefusal(refused.code);
  const body = JSON.stringify(refused.toBody());
  socket.end(
    `HTTP/1.1 ${refused.status} ${STATUS_CODES[refused.status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nrequest-id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Answers what Node's parser and Fastify's router refuse from the catalog; `requestTimeoutMs` is the edge's timeout, named in a 408. */
export function installClientErrors(app: FastifyInstance, newRequestId: () => string, requestTimeoutMs: number | undefined): void {
  const server = app.server;
  server.prependListener('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (socket.destroyed) return;
    const refused = refusalFor(error, socket as Socket, requestTimeoutMs);
    if (refused) {
      app.log.info({ remoteAddress: (socket as Socket).remoteAddress, code: error.code, status: refused.status }, 'a request HTTP could not read: answered from the catalog and closed');
      writeAndClose(socket, refused, newRequestId());
    }
    socket.destroy();
  });
  server.on('connect', (_request, socket: Duplex) => {
    writeAndClose(socket, refusal('MALFORMED_HTTP', { detail: 'CONNECT: this service is not a proxy' }), newRequestId());
  });
  // A callback hook: every request passes it, without a promise.
  app.addHook('onRequest', (request, reply, done) => {
    const { httpVersionMajor, httpVersionMinor, headers } = request.raw;
    if (httpVersionMajor !== 1 || httpVersionMinor !== 1 || headers.host) return done();
    // As the refusal says: the connection is closed, like every other request HTTP refuses.
    reply.header('connection', 'close');
    done(refusal('MALFORMED_HTTP', { detail: 'an HTTP/1.1 request must carry a Host header' }));
  });
}

/** Fastify's `frameworkErrors` option: a URL it cannot percent-decode, refused as the catalog words it. */
export function frameworkRefusal(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const refused = error.code === 'FST_ERR_BAD_URL' ? refusal('MALFORMED_URL', { detail: error.message }) : refusal('MALFORMED_HTTP', { detail: error.message });
  // Fastify calls this before any hook runs: the request-id the onSend hook sets elsewhere is set here.
  void reply.status(refused.status).header('request-id', request.id).send(refused.toBody());
}
