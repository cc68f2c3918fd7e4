/** Query schemas of the event tail doors (`GET /events`, `GET /events/stream`). */
import { Type } from '@sinclair/typebox';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../domain/paging.ts';
import { FEEDS, type Feed } from '../journal/store.ts';
import { Cursor, PageSize, Strict } from './common.ts';

const FeedSchema = Type.Unsafe<Feed>({ type: 'string', enum: [...FEEDS], default: 'timeline', examples: ['timeline'], description: 'timeline: everything; reminders: reminder.* events from ladder rungs; time: events with a named actor' });
const After = Type.Integer({ ...Cursor('events with seq greater than this'), default: 0 });

export const EventsQuery = Strict({
  after: After,
  limit: PageSize(MAX_PAGE_SIZE, DEFAULT_PAGE_SIZE),
  feed: FeedSchema,
});

export const EventStreamQuery = Strict({ after: After, feed: FeedSchema });

/** `Last-Event-ID` as EventSource sends it back: the decimal seq of the last frame seen. */
export const LAST_EVENT_ID = /^(0|[1-9][0-9]{0,15})$/;
