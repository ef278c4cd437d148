"""The agreement view filled from a small simulated campaign: its cells against the
reference implementations, the pair chooser, the rankings tab, the CSV export (method and
button), and every model through pytest-qt's model tester."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest
from agreement_campaign import ASSESSORS, TOPICS, build_campaign
from agreement_reference import scope_reference
from PySide6.QtCore import Qt
from sklearn.metrics import cohen_kappa_score, confusion_matrix

from judgeapp.services.agreement import agreement_report
from judgeapp.store import Store
from judgeapp.ui.agreement_view import AgreementView, FiguresTableModel
from tests.conftest import new_pg_project
from tests.ui.waiting import open_project, settled  # noqa: F401


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]
)
def campaign_report(request, tmp_path_factory):
    """A campaign's report, read from a project on SQLite and on PostgreSQL (as the
    project_db fixture, once per module)."""
    folder = tmp_path_factory.mktemp("agreement")
    if request.param == "sqlite":
        db = str(folder / "project.db")
    else:
        db = new_pg_project(request.getfixturevalue("pg_server"))
    campaign = build_campaign(db, folder=folder / "runs", topics=TOPICS[:10], overlap=0.4)
    with Store.open(db) as store:
        report = agreement_report(store, bootstrap=100, seed=3, rankings="AP")
    return campaign, report


def cell(model: FiguresTableModel, row: int, column: int, role=Qt.ItemDataRole.DisplayRole):
    return model.data(model.index(row, column), role)


def row_of(model: FiguresTableModel, label: str) -> int:
    labels = [cell(model, r, 0) for r in range(model.rowCount())]
    return labels.index(label)


@pytest.fixture
def view(qtbot, campaign_report):
    _campaign, report = campaign_report
    widget = AgreementView()
    qtbot.addWidget(widget)
    widget.set_report(report)
    widget.show()
    settled()
    return widget


def test_cells_show_the_figures(view, campaign_report):
    campaign, report = campaign_report
    units = np.array(
        [
            [float(g.get(a, np.nan)) for a in ASSESSORS]
            for _k, g in sorted(campaign.grades.items())
            if len(g) > 1
        ]
    )
    ref = scope_reference(units, 1, report.fleiss_raters)
    overall = view.overall_model
    r = row_of(overall, "Fleiss κ")
    assert cell(overall, r, 1) == f"{ref['fleiss_kappa']:.4f}"
    assert cell(overall, r, 1, FiguresTableModel.ValueRole) == pytest.approx(
        ref["fleiss_kappa"], abs=1e-9
    )
    low, high = report.intervals["fleiss_kappa"]
    assert (cell(overall, r, 2), cell(overall, r, 3)) == (f"{low:.4f}", f"{high:.4f}")
    r = row_of(overall, "Documents")
    assert cell(overall, r, 1) == str(len(units)) and cell(overall, r, 2) == ""
    # per topic: one row per topic with shared documents
    topics = view.topic_model
    assert [cell(topics, r, 0) for r in range(topics.rowCount())] == list(report.topics)
    headers = [topics.headerData(c, Qt.Orientation.Horizontal) for c in range(topics.columnCount())]
    qid = report.topics[0]
    col = headers.index("α ordinal")
    in_topic = units[[q == qid for (q, _d), g in sorted(campaign.grades.items()) if len(g) > 1]]
    expected = scope_reference(in_topic, 1, report.fleiss_raters)["krippendorff_alpha_ordinal"]
    assert cell(topics, 0, col, FiguresTableModel.ValueRole) == pytest.approx(expected, abs=1e-9)
    # pairs: Cohen's kappa of bob and carol
    pairs = view.pair_model
    headers = [pairs.headerData(c, Qt.Orientation.Horizontal) for c in range(pairs.columnCount())]
    r = [(cell(pairs, i, 0), cell(pairs, i, 1)) for i in range(pairs.rowCount())].index(
        ("bob", "carol")
    )
    both = units[~np.isnan(units[:, 1]) & ~np.isnan(units[:, 2])][:, 1:]
    kappa = cohen_kappa_score(both[:, 0], both[:, 1], labels=[0, 1, 2, 3])
    assert cell(pairs, r, headers.index("Cohen κ")) == f"{kappa:.4f}"
    assert cell(pairs, r, headers.index("Documents")) == str(len(both))


def test_the_pair_chooser_shows_each_confusion_matrix(view, campaign_report, qtbot):
    campaign, report = campaign_report
    assert view.pair_choice.count() == 3
    view.tabs.setCurrentIndex(3)
    settled()
    for i, pair in enumerate(report.pairs):
        view.pair_choice.setCurrentIndex(i)
        settled()
        both = [
            (g[pair.first], g[pair.second])
            for g in campaign.grades.values()
            if pair.first in g and pair.second in g
        ]
        a, b = np.array(both).T
        expected = confusion_matrix(a, b, labels=[0, 1, 2, 3])
        model = view.confusion_model
        assert model.rowCount() == model.columnCount() - 1 == 4
        assert cell(model, 2, 0) == f"{pair.first}: 2"
        shown = [[int(cell(model, r, c + 1)) for c in range(4)] for r in range(4)]
        assert shown == expected.tolist()


def test_rankings_tab(view, campaign_report):
    _campaign, report = campaign_report
    assert view.tabs.isTabEnabled(view.rankings_tab)
    model = view.ranking_model
    assert model.rowCount() == len(report.rankings.pairs) == 12
    first = report.rankings.pairs[0]
    assert [cell(model, 0, c) for c in range(3)] == [
        first.reference,
        first.other,
        str(len(first.topics)),
    ]
    assert cell(model, 0, 4, FiguresTableModel.ValueRole) == first.tau_ap
    assert "ranked by AP" in view.ranking_note.text()


def test_csv_export_of_every_table(view, campaign_report, tmp_path, qtbot):
    _campaign, report = campaign_report
    paths = view.export_csv(tmp_path / ".")
    names = sorted(p.name for p in paths)
    assert names == [
        "agreement-all.csv",
        "agreement-confusion.csv",
        "agreement-pairs.csv",
        "agreement-rankings.csv",
        "agreement-topics.csv",
    ]
    rows = list(csv.DictReader(io.StringIO((tmp_path / "agreement-all.csv").read_text())))
    by_stat = {r["statistic"]: r for r in rows}
    assert float(by_stat["krippendorff_alpha_nominal"]["value"]) == pytest.approx(
        report.overall["krippendorff_alpha_nominal"], abs=1e-15
    )
    assert by_stat["documents"]["value"] == str(int(report.overall["documents"]))
    topics = list(csv.DictReader(io.StringIO((tmp_path / "agreement-topics.csv").read_text())))
    assert [r["topic"] for r in topics] == list(report.topics)
    confusion = list(csv.reader(io.StringIO((tmp_path / "agreement-confusion.csv").read_text())))
    assert confusion[0] == ["first", "second", "grade", "0", "1", "2", "3"]
    assert len(confusion) == 1 + 3 * 4
    # the button: a folder dialog, and the tables written where it points
    out = tmp_path / "button"
    out.mkdir()
    qtbot.mouseClick(view.export_button, Qt.MouseButton.LeftButton)
    settled()
    dialog = view.file_dialog
    assert dialog is not None and dialog.isVisible()
    with qtbot.waitSignal(view.csv_exported) as blocker:
        dialog.setDirectory(str(out))
        dialog.selectFile(str(out))
        dialog.accept()
        settled()
    settled()
    assert sorted(p.name for p in blocker.args[0]) == names
    assert (out / "agreement-pairs.csv").read_text() == (
        tmp_path / "agreement-pairs.csv"
    ).read_text()
    assert "Exported 5 tables" in view.status.text()


def test_models_pass_the_model_tester(view, qtmodeltester):
    for model in (
        view.overall_model,
        view.topic_model,
        view.pair_model,
        view.confusion_model,
        view.ranking_model,
    ):
        qtmodeltester.check(model)
