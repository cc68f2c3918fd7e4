/**
 * The docs page's script (`src/web/docs.ts` serves the page): inlines each
 * coverage figure's diagram and marks what the model paths walked on it
 * (`diagram.ts`); the figure's caption says the same in words.
 */
import type { DrawnCoverage } from './coverage.ts';
import { drawCoverage, fetchText, fitDiagram, mountDiagram } from './diagram.ts';

async function drawFigure(figure: HTMLElement): Promise<void> {
  const holder = figure.querySelector<HTMLElement>('.diagram');
  if (!holder) return;
  try {
    const ix = mountDiagram(holder, await fetchText(figure.dataset.svg ?? ''), figure.querySelector('figcaption')?.id);
    fitDiagram(ix, true);
    const coverage: DrawnCoverage = JSON.parse(figure.dataset.coverage ?? '');
    drawCoverage(ix, coverage);
    figure.dataset.drawn = 'true';
  } catch (error) {
    holder.textContent = error instanceof Error ? error.message : String(error);
    figure.dataset.drawn = 'failed';
  }
}

void Promise.all([...document.querySelectorAll<HTMLElement>('figure.coverage')].map(drawFigure)).then(() => {
  document.body.dataset.coverageDrawn = 'true';
});
