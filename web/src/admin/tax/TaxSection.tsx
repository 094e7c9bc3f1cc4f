import { NavLink, Route, Routes } from 'react-router-dom';
import { AuditLogPage } from './AuditLogPage';
import { ReviewQueue } from './ReviewQueue';
import { TAX_PATHS } from './tax-records';
import { TaxRecordPage } from './TaxRecordPage';
import { TaxSettingsPage } from './TaxSettingsPage';

/** The Tax section's pages, under /app/admin/tax: the forms to review, one record, the settings and the audit log. */
export function TaxSection() {
  return (
    <>
      <nav aria-label="Tax pages" className="subnav">
        <ul>
          <li>
            <NavLink to={TAX_PATHS.queue} end>
              Tax forms
            </NavLink>
          </li>
          <li>
            <NavLink to={TAX_PATHS.settings}>Settings</NavLink>
          </li>
          <li>
            <NavLink to={TAX_PATHS.auditLog}>Audit log</NavLink>
          </li>
        </ul>
      </nav>
      <Routes>
        <Route index element={<ReviewQueue />} />
        <Route path="records/:identifierType/:identifier" element={<TaxRecordPage />} />
        <Route path="settings" element={<TaxSettingsPage />} />
        <Route path="audit-log" element={<AuditLogPage />} />
        <Route path="*" element={<p>There is no such tax page.</p>} />
      </Routes>
    </>
  );
}
