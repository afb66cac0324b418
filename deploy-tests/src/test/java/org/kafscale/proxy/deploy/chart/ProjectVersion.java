package org.kafscale.proxy.deploy.chart;

import javax.xml.parsers.DocumentBuilderFactory;
import org.kafscale.proxy.deploy.RepoPaths;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/** The version in the root pom, which the chart's appVersion (the default image tag) follows. */
final class ProjectVersion {
    private ProjectVersion() {
    }

    static String read() throws Exception {
        Element project = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(RepoPaths.root().resolve("pom.xml").toFile()).getDocumentElement();
        for (Node child = project.getFirstChild(); child != null; child = child.getNextSibling()) {
            if ("version".equals(child.getNodeName())) {
                return child.getTextContent().trim();
            }
        }
        throw new AssertionError("The root pom has no <version>");
    }
}
