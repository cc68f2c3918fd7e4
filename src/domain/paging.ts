/** How a page of the event tail is sized: read by the tail (the engine) and stated by its query schema. */
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 500;
