/**
 * An incremental parser for the Server-Sent Events wire format (the
 * `text/event-stream` grammar of the HTML standard): feed it text in whatever
 * chunks the network delivers, and it hands back each complete frame. Pure:
 * no I/O, so the way bytes are split can never change what is parsed.
 */

export interface SseFrame {
  /** The `event` field, `message` when the frame names none. */
  event: string;
  /** The `data` lines joined with `\n`. */
  data: string;
  /** The stream's last event id as of this frame (ids persist across frames). */
  id?: string;
}

export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private event = '';
  private first = true;
  private afterCr = false;
  /** The last event id seen, as the standard keeps it: it persists until another `id` field. */
  lastEventId: string | undefined;
  /** The reconnection delay the server asked for with a `retry` field, in milliseconds. */
  retryMs: number | undefined;

  /** Feeds a chunk; returns the frames it completed. */
  push(chunk: string): SseFrame[] {
    if (!chunk) return [];
    if (this.first) {
      // A leading byte-order mark is not part of the stream.
      if (chunk.charCodeAt(0) === 0xfeff) chunk = chunk.slice(1);
      this.first = false;
    }
    // A `\r` that ended the previous chunk was a whole line ending; if this
    // chunk opens with `\n`, the pair was one `\r\n`, already counted.
    if (this.afterCr && chunk.charCodeAt(0) === 10) chunk = chunk.slice(1);
    this.afterCr = false;
    const text = this.buffer + chunk;
    const frames: SseFrame[] = [];
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 10 && c !== 13) continue;
      const frame = this.line(text.slice(start, i));
      if (frame) frames.push(frame);
      if (c === 13) {
        if (i === text.length - 1) this.afterCr = true;
        else if (text.charCodeAt(i + 1) === 10) i++;
      }
      start = i + 1;
    }
    this.buffer = text.slice(start);
    return frames;
  }

  private line(line: string): SseFrame | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) return undefined; // a comment: the keep-alive
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.data.push(value);
        break;
      case 'event':
        this.event = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.lastEventId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retryMs = Number(value);
        break;
      default:
        break; // unknown fields are ignored, as the standard says
    }
    return undefined;
  }

  private dispatch(): SseFrame | undefined {
    const data = this.data;
    const event = this.event || 'message';
    this.data = [];
    this.event = '';
    // A frame without data dispatches nothing (its id, if any, still moved lastEventId).
    if (!data.length) return undefined;
    return { event, data: data.join('\n'), ...(this.lastEventId !== undefined ? { id: this.lastEventId } : {}) };
  }
}
