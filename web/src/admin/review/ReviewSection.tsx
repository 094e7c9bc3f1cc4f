import { Navigate, NavLink, Route, Routes } from 'react-router-dom';
import { ReviewQueue } from './ReviewQueue';
import { ReviewSettingsPage } from './ReviewSettingsPage';

/** The Review section's pages, under /app/admin/review: the conversions the review rules flagged, and the rules. */
export function ReviewSection() {
  return (
    <>
      <nav className="subnav" aria-label="Review pages">
        <ul>
          <li>
            <NavLink to="/admin/review/queue">Queue</NavLink>
          </li>
          <li>
            <NavLink to="/admin/review/settings">Settings</NavLink>
          </li>
        </ul>
      </nav>
      <Routes>
        <Route index element={<Navigate to="queue" replace />} />
        <Route path="queue" element={<ReviewQueue />} />
        <Route path="settings" element={<ReviewSettingsPage />} />
        <Route path="*" element={<p>There is no such review page.</p>} />
      </Routes>
    </>
  );
}
