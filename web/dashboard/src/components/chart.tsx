import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries {
  label: string;
  values: number[];
  /** Stroke colour; each series also has its own dash pattern, so colour is never the only cue. */
  color: string;
  dash?: number[];
}

/**
 * A line chart of daily figures (uPlot, loaded with the pages that draw one), with the same data
 * as a table for screen readers and anyone who prefers numbers.
 */
export default function Chart({ title, days, series }: { title: string; days: string[]; series: ChartSeries[] }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const width = Math.max(280, Math.min(element.clientWidth || 640, 900));
    const plot = new uPlot(
      {
        width,
        height: 220,
        series: [{ label: 'Day' }, ...series.map((each) => ({ label: each.label, stroke: each.color, width: 2, dash: each.dash }))],
        axes: [{}, { size: 40 }],
        scales: { x: { time: true } },
      },
      [days.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000), ...series.map((each) => each.values)],
      element,
    );
    return () => plot.destroy();
  }, [days, series]);
  return (
    <figure className="chart">
      <figcaption>{title}</figcaption>
      <div ref={box} aria-hidden="true" />
      <details>
        <summary>{title}: show as a table</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">Day</th>
              {series.map((each) => (
                <th scope="col" key={each.label}>
                  {each.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {days.map((day, index) => (
              <tr key={day}>
                <th scope="row">{day}</th>
                {series.map((each) => (
                  <td key={each.label}>{each.values[index]}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
