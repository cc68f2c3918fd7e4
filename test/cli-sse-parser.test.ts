/** The SSE wire parser: the standard's grammar, whatever the chunking. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SseParser, type SseFrame } from '../src/cli/sse-parser.ts';

const parseAll = (chunks: string[]) => {
  const parser = new SseParser();
  const frames: SseFrame[] = chunks.flatMap((c) => parser.push(c));
  return { frames, parser };
};

describe('SseParser', () => {
  it('parses named frames with ids, skipping comments (the keep-alive)', () => {
    const { frames } = parseAll([': ping\n\nevent: grain-event\nid: 7\ndata: {"seq":7}\n\n: ping\n\n']);
    expect(frames).toEqual([{ event: 'grain-event', id: '7', data: '{"seq":7}' }]);
  });

  it('joins data lines, accepts every line ending, strips one leading space only', () => {
    const { frames } = parseAll(['data:a\r\ndata:  b\rdata\n\n']);
    expect(frames).toEqual([{ event: 'message', data: 'a\n b\n' }]);
  });

  it('keeps the last id across frames, and a frame with only an id moves it without dispatching', () => {
    const { frames, parser } = parseAll(['id: 3\ndata: x\n\ndata: y\n\nid: 9\n\n']);
    expect(frames).toEqual([{ event: 'message', id: '3', data: 'x' }, { event: 'message', id: '3', data: 'y' }]);
    expect(parser.lastEventId).toBe('9');
  });

  it('takes retry as the reconnection delay, ignores unknown fields and a leading BOM, holds an unfinished frame', () => {
    const { frames, parser } = parseAll(['\ufeffretry: 2000\nfoo: bar\ndata: one\n\ndata: half']);
    expect(frames).toEqual([{ event: 'message', data: 'one' }]);
    expect(parser.retryMs).toBe(2000);
    expect(parser.push('\n\n')).toEqual([{ event: 'message', data: 'half' }]);
  });

  it('parses the same frames however the bytes are split (CRLF split across chunks too)', () => {
    const frame = fc.record({
      event: fc.constantFrom('grain-event', 'message', 'other'),
      id: fc.nat({ max: 10_000 }).map(String),
      data: fc.array(fc.string({ unit: fc.constantFrom('a', 'b', '{', '}', '"', ':', ' ', 'é', '→') }), { minLength: 1, maxLength: 3 }),
      comment: fc.boolean(),
      eol: fc.constantFrom('\n', '\r\n', '\r'),
    });
    fc.assert(
      fc.property(fc.array(frame, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 10 }), (list, cuts) => {
        const text = list.map((f) => [...(f.comment ? [': keep-alive'] : []), `event: ${f.event}`, `id: ${f.id}`, ...f.data.map((d) => `data: ${d}`), '', ''].join(f.eol)).join('');
        const points = [...new Set(cuts.map((c) => (text.length ? c % text.length : 0)))].sort((a, b) => a - b);
        const chunks: string[] = [];
        let from = 0;
        for (const p of points) {
          chunks.push(text.slice(from, p));
          from = p;
        }
        chunks.push(text.slice(from));
        const whole = parseAll([text]).frames;
        expect(parseAll(chunks).frames).toEqual(whole);
        expect(whole).toEqual(list.map((f) => ({ event: f.event, id: f.id, data: f.data.join('\n') })));
      }),
    );
  });
});
